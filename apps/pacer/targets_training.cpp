// pacer targets, the half that trains (pacer-train): the procedure over the study store,
// resumable; run the same command in a second terminal to use a second core.
#include <cstdio>

#include "interrupt.h"
#include "targets_command.h"
#include "core/atomic_file.h"
#include "core/output_folder.h"
#include "core/progress.h"
#include "runtime/torch_runtime.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "run/target_setting_run.h"

namespace pacer::cli {

int run_targets(TargetsArgs& a) {
  const TargetSetter setter = make_target_setter(a);  // validates before the store exists
  resolve_device(a.device);
  if (!a.out.empty()) check_output_file(a.out, "--out");  // now, not after the whole search
  make_store_folder(a.store);
  const int threads = set_num_threads(a.threads);

  StudyStore store(a.store);
  Progress progress(a.quiet ? Progress::Mode::quiet : Progress::auto_detect());
  WorkerOptions worker;
  worker.stop_requested = &install_interrupt_handler();
  worker.progress = &progress;
  worker.trial_process = "/proc/self/exe";  // a Python submission's or plugin's trials: contained
  worker.trial_process_threads = threads;
  progress.log(target_setting_headline(setter, store.path()));
  const auto record = set_targets(setter, store, worker);
  if (!record) return 130;
  if (!a.out.empty()) write_file_atomic(a.out, record->dump(2) + "\n");
  std::fputs(target_summary(*record, a.options, a.out).c_str(), stdout);
  return 0;
}

}  // namespace pacer::cli
