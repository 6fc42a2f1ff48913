// pacer targets: AlgoPerf's target-setting procedure for one workload, through the study store
// (resumable; run the same command in a second terminal to use a second core).
#include <cstdio>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "input_guards.h"
#include "trial_spec_options.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "core/format.h"
#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/hyperparameters.h"
#include "interrupt.h"
#include "runtime/torch_runtime.h"
#include "train/trial_runner.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/target_setting.h"
#include "tune/tuning_worker.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer::cli {
namespace {

// The best point's seconds per step, timed after the re-runs, when no trial of this command runs
// beside it: the re-runs' own trial settings, `steps` steps, seed 1 (evals are off the clock).
StepTiming time_best_point(const StudyStore& store, const std::vector<StudyRecord>& reruns, int64_t steps, int threads,
                           const std::atomic<bool>& stop) {
  const StudyRecord& study = reruns.at(0);
  TrialOptions options;
  options.spec = TrialSpec::from_json(study.trial_options);
  options.spec.max_steps = steps;
  options.spec.eval_every_steps = steps;
  options.seed = 1;
  options.stop_requested = &stop;
  auto workload = create_workload(study.workload, options.spec.workload_options);
  auto algorithm = create_algorithm(study.algorithm);
  const auto hparams = Hyperparameters::from_json_text(store.trials(study.id).at(0).hparams_json.value_or("{}"),
                                                       study.name());
  const TrialResult result = run_trial(*workload, *algorithm, hparams, options);
  if (stop) return StepTiming();  // the caller exits 130
  if (result.steps <= 0 || result.accumulated_submission_time <= 0.0) {
    throw Error("targets: the timing run of the best point did not train: " + result.message);
  }
  StepTiming timing;
  timing.seconds_per_step = result.accumulated_submission_time / static_cast<double>(result.steps);
  timing.measured_with = "the best point alone after the re-runs: " + std::to_string(result.steps) + " steps, seed 1, " +
                         std::to_string(threads) + " thread(s) on " + resolve_device(options.spec.device).str();
  return timing;
}

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
  return [a]() -> int {
    a->options.workload = a->workload;
    a->options.trial.clock = parse_clock_option(a->clock);
    a->options.algorithms = split_list(a->algorithms);
    a->options.trial.device = a->device;
    a->options.trial.data_dir = a->data_dir;
    const TargetSetter setter(a->options);  // validates before the store exists
    const auto search_sweeps = setter.search_sweeps();
    for (const auto& s : search_sweeps) {
      validate_sweep(s);
      if (s.space) for (const auto& w : s.space->warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
    }
    resolve_device(a->device);
    if (!a->out.empty()) check_output_file(a->out, "--out");  // now, not after the whole search
    make_store_folder(a->store);
    const int threads = set_num_threads(a->threads);

    StudyStore store(a->store);
    Progress progress(a->quiet ? Progress::Mode::quiet : Progress::auto_detect());
    const std::atomic<bool>& stop = install_interrupt_handler();
    WorkerOptions worker;
    worker.stop_requested = &stop;
    worker.progress = &progress;
    auto run_studies = [&](const std::vector<StudyRecord>& studies) {
      const WorkerReport report = run_tuning_worker(a->store, studies, worker);
      if (report.interrupted) {
        progress.log("interrupted: the same command resumes from " + store.path());
        return false;
      }
      return true;
    };

    progress.log("pacer targets: " + a->workload + ", " + std::to_string(a->options.algorithms.size()) +
                 " algorithms x " + std::to_string(a->options.trials) + " points, " +
                 std::to_string(setter.steps_per_run()) + " steps each (eval every " +
                 std::to_string(setter.eval_every()) + "), then " + std::to_string(a->options.reruns) +
                 " re-runs of the best; store " + store.path());
    const auto search = plan_sweeps(store, search_sweeps);
    if (!run_studies(search)) return 130;
    const auto reruns = plan_sweeps(store, {setter.rerun_sweep(store, search)});
    if (!run_studies(reruns)) return 130;

    std::optional<StepTiming> timing;
    if (a->options.timing_steps > 0) {
      progress.log("timing the best point alone: " + std::to_string(a->options.timing_steps) + " steps");
      timing = time_best_point(store, reruns, a->options.timing_steps, threads, stop);
      if (stop) return 130;
    }
    const nlohmann::ordered_json record = setter.record(store, search, reruns, timing);
    if (!a->out.empty()) write_file_atomic(a->out, record.dump(2) + "\n");
    const auto& range = record["rerun_best_validation"];
    std::printf("workload:           %s (%s, %s)\n", a->workload.c_str(), record["metric"].get<std::string>().c_str(),
                record["higher_is_better"].get<bool>() ? "higher is better" : "lower is better");
    std::printf("best point:         %s %s\n", record["best_point"]["algorithm"].get<std::string>().c_str(),
                record["best_point"]["hparams"].dump().c_str());
    std::printf("re-runs' best:      min %s, median %s, max %s\n", format_double("%.4g", range["min"].get<double>()).c_str(),
                format_double("%.4g", range["median"].get<double>()).c_str(),
                format_double("%.4g", range["max"].get<double>()).c_str());
    std::printf("validation target:  %s\n", format_double("%.4g", record["validation_target"].get<double>()).c_str());
    std::printf("test target:        %s\n", record["test_target"].is_null()
                                                ? "none (no re-run reached the validation target)"
                                                : format_double("%.4g", record["test_target"].get<double>()).c_str());
    if (record.contains("budget_basis")) {
      const auto& basis = record["budget_basis"];
      std::printf("budget:             %s s (%s x median steps to target %s x %s s per step alone; "
                  "from the re-runs' times it would be %s s)\n",
                  format_double("%.4g", record["budget_s"].get<double>()).c_str(),
                  format_double("%.3g", a->options.budget_factor).c_str(),
                  format_double("%.6g", basis["median_steps_to_target"].get<double>()).c_str(),
                  format_double("%.4g", basis["seconds_per_step_alone"].get<double>()).c_str(),
                  format_double("%.4g", record["budget_under_load_s"].get<double>()).c_str());
    } else {
      std::printf("budget:             %s s (%s x median time to target %s s)\n",
                  format_double("%.4g", record["budget_s"].get<double>()).c_str(),
                  format_double("%.3g", a->options.budget_factor).c_str(),
                  format_double("%.4g", record["median_time_to_target_s"].get<double>()).c_str());
    }
    if (!a->out.empty()) std::printf("record:             %s\n", a->out.c_str());
    return 0;
  };
}

}  // namespace pacer::cli
