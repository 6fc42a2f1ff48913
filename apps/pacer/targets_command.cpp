// pacer targets: AlgoPerf's target-setting procedure for one workload, through the study store
// (resumable; run the same command in a second terminal to use a second core).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "input_guards.h"
#include "interrupt.h"
#include "trial_spec_options.h"
#include "core/atomic_file.h"
#include "core/output_folder.h"
#include "core/progress.h"
#include "runtime/torch_runtime.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "run/target_setting_run.h"

namespace pacer::cli {
namespace {

struct TargetsArgs {
  std::string workload, store = "runs/targets.db", out, algorithms = "adamw,nadamw,momentum,nesterov";
  std::string device = "auto", data_dir, clock = "wall";
  TargetSettingOptions options;
  int threads = 0;
  bool quiet = false;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

int run_targets(TargetsArgs& a) {
  a.options.workload = a.workload;
  a.options.trial.clock = parse_clock_option(a.clock);
  a.options.algorithms = split_list(a.algorithms);
  a.options.trial.device = a.device;
  a.options.trial.data_dir = a.data_dir;
  const TargetSetter setter(a.options);  // validates before the store exists
  for (const auto& s : setter.search_sweeps()) {
    validate_sweep(s);
    if (s.space)
      for (const auto& w : s.space->warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
  }
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
  const auto record = set_targets(setter, store, worker, threads);
  if (!record) return 130;
  if (!a.out.empty()) write_file_atomic(a.out, record->dump(2) + "\n");
  std::fputs(target_summary(*record, a.options, a.out).c_str(), stdout);
  return 0;
}

}  // namespace

Action add_targets_command(CLI::App& app) {
  auto a = std::make_shared<TargetsArgs>();
  app.add_option("-w,--workload", a->workload, "Workload whose targets to set")->required();
  app.add_option("--store", a->store, "Study store (SQLite file or postgresql:// URI) holding every run; the command resumes from it")
      ->capture_default_str();
  app.add_option("-o,--out", a->out, "Target record to write (JSON; default: print only)");
  app.add_option("--algorithms", a->algorithms, "Target-setting algorithms, comma-separated")->capture_default_str();
  app.add_option("--space-dir", a->options.space_dir, "Folder of the algorithms' search spaces (A.json)")
      ->capture_default_str();
  app.add_option("--trials", a->options.trials, "Quasi-random points per algorithm")->capture_default_str()
      ->check(positive_number());
  app.add_option("--reruns", a->options.reruns, "Seeds the best point is re-run with")->capture_default_str();
  app.add_option("--step-fraction", a->options.step_fraction, "Steps per run as a fraction of the step hint")
      ->capture_default_str();
  app.add_option("--step-hint", a->options.step_hint, "Step hint (default: the workload's)");
  app.add_option("--eval-every", a->options.eval_every, "Eval every N steps (default: steps per run / 20)");
  app.add_option("--budget-factor", a->options.budget_factor,
                 "Budget = this x the median time the re-runs need to reach the validation target")
      ->capture_default_str();
  app.add_option("--timing-steps", a->options.timing_steps,
                 "Steps of the timing run of the best point, alone after the re-runs; the budget is "
                 "factor x median steps to target x its seconds per step (0: factor x the re-runs' median time)")
      ->check(non_negative_number())
      ->capture_default_str();
  app.add_option("--seed", a->options.seed, "Seed of the sampler and the trials")->capture_default_str();
  app.add_option("--device", a->device, "auto, cpu or cuda")->capture_default_str();
  app.add_option("--data-dir", a->data_dir, "The workload's data folder");
  app.add_option("--threads", a->threads, "Intra-op CPU threads (default: LibTorch's)")->check(non_negative_number());
  add_clock_option(app, a->clock);
  app.add_flag("-q,--quiet", a->quiet, "Only the summary");
  return [a]() -> int { return run_targets(*a); };
}

}  // namespace pacer::cli
