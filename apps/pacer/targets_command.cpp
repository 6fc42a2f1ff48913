// pacer targets: AlgoPerf's target-setting procedure for one workload, through the study store.
// This half (in both programs) takes the options and, with --no-run, reads a finished
// procedure's record from the store without LibTorch; the procedure itself runs in pacer-train
// (targets_training.cpp).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "input_guards.h"
#include "targets_command.h"
#include "training_layer.h"
#include "trial_spec_options.h"
#include "core/atomic_file.h"
#include "core/output_folder.h"
#include "store/study_store.h"

namespace pacer::cli {
namespace {

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

// --no-run: the record from the store, writing nothing there.
int read_targets_command(TargetsArgs& a) {
  const TargetSetter setter = make_target_setter(a);
  if (!a.out.empty()) check_output_file(a.out, "--out");
  const StudyStore store(a.store, StudyStoreOptions::reading());
  const auto record = read_targets(setter, store);
  if (!a.out.empty()) write_file_atomic(a.out, record.dump(2) + "\n");
  std::fputs(target_summary(record, a.options, a.out).c_str(), stdout);
  return 0;
}

}  // namespace

TargetSetter make_target_setter(TargetsArgs& a) {
  a.options.workload = a.workload;
  a.options.trial.clock = parse_clock_option(a.clock);
  a.options.algorithms = split_list(a.algorithms);
  a.options.trial.device = a.device;
  a.options.trial.data_dir = a.data_dir;
  TargetSetter setter(a.options);
  for (const auto& s : setter.search_sweeps()) {
    validate_sweep(s);
    if (s.space)
      for (const auto& w : s.space->warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
  }
  return setter;
}

Action add_targets_command(CLI::App& app, const CommandContext& context) {
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
  app.add_option("--step-hint", a->options.step_hint, "Step hint (default: the workload's)")->check(positive_number());
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
  app.add_flag("--no-run", a->no_run,
               "Only read the record of a finished procedure from the store (runs nothing, writes nothing there)");
  return [a, training = context.training]() -> Outcome {
    if (a->no_run) return read_targets_command(*a);
    if (!training) return Outcome::hand_on("");  // the command trains
    return training->targets(*a);
  };
}

}  // namespace pacer::cli
