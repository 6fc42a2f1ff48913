// pacer scale, the half that trains (pacer-train): for each algorithm and batch size, a
// quasi-random tuning study with a fixed step budget goes to the study store.
#include <cstdio>

#include "scale_command.h"
#include "algorithms/plugin_loader.h"
#include "core/output_folder.h"
#include "core/progress.h"
#include "run/tuning_worker.h"
#include "contained_declarations.h"
#include "runtime/torch_runtime.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "workloads/training_set_size.h"

namespace pacer::cli {

// Plugins and Python submissions: declared from a contained process (their trials run contained,
// on the wall clock).
void declare_scale_algorithms(const std::vector<std::string>& values) {
  declare_algorithm_files(values, contained_describer(ClockKind::wall));
}

int run_scale(const ScaleArgs& a) {
  declare_scale_algorithms(a.request.algorithms);
  const ScalePlan plan = plan_scale(a.request, training_set_size);  // InputError before anything is written
  for (const auto& w : plan.warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
  if (!a.out.empty()) prepare_output_folder(a.out, "--out");  // unwritable: said before any study
  resolve_device(a.request.device);
  make_store_folder(a.store);
  StudyStore store(a.store);
  const std::vector<StudyRecord> studies = plan_sweeps(store, plan.sweeps);
  const int threads = set_num_threads(a.threads);

  Progress progress(a.quiet ? Progress::Mode::quiet : Progress::auto_detect());
  progress.log(plan.headline(a.request));
  WorkerOptions options;
  options.out_dir = a.out.empty() ? "" : a.out + "/logs";
  options.experiment_folders = true;
  options.progress = &progress;
  options.trial_process = "/proc/self/exe";  // a Python submission's or plugin's trials: contained
  options.trial_process_threads = threads;
  options.race = a.race;  // by the trials' goal (run/racing.h), whatever the studies' ruleset
  const WorkerReport worker = run_tuning_worker(a.store, studies, options);

  print_scaling_report(a, read_scaling_study(store, studies, plan.goal, {a.request.perfect, a.request.maximal}));
  return worker.interrupted ? 130 : 0;
}

}  // namespace pacer::cli
