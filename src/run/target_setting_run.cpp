#include "run/target_setting_run.h"

#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/error.h"
#include "core/format.h"
#include "core/hyperparameters.h"
#include "runtime/torch_runtime.h"
#include "train/trial_runner.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer {
namespace {

// The best point's seconds per step, timed after the re-runs, when no trial of this procedure
// runs beside it: the re-runs' own trial settings, `steps` steps, seed 1 (evals are off the clock).
std::optional<StepTiming> time_best_point(const StudyStore& store, const std::vector<StudyRecord>& reruns, int64_t steps,
                                          int threads, const std::atomic<bool>* stop) {
  const StudyRecord& study = reruns.at(0);
  TrialOptions options;
  options.spec = TrialSpec::from_json(study.trial_spec);
  options.spec.max_steps = steps;
  options.spec.eval_every_steps = steps;
  options.seed = 1;
  options.stop_requested = stop;
  auto workload = create_workload(study.workload, options.spec.workload_options);
  auto algorithm = create_algorithm(study.algorithm);
  const auto hparams =
      Hyperparameters::from_json_text(store.trials(study.id).at(0).hparams_json.value_or("{}"), study.name());
  const TrialResult result = run_trial(*workload, *algorithm, hparams, options);
  if (stop && *stop) return std::nullopt;
  if (result.steps <= 0 || result.submission_time <= 0.0) {
    throw Error("targets: the timing run of the best point did not train: " + result.message);
  }
  StepTiming timing;
  timing.seconds_per_step = result.submission_time / static_cast<double>(result.steps);
  timing.measured_with = "the best point alone after the re-runs: " + std::to_string(result.steps) + " steps, seed 1, " +
                         std::to_string(threads) + " thread(s) on " + resolve_device(options.spec.device).str();
  return timing;
}

}  // namespace

std::string target_setting_headline(const TargetSetter& setter, const std::string& store_path) {
  const TargetSettingOptions& o = setter.options();
  return "pacer targets: " + o.workload + ", " + std::to_string(o.algorithms.size()) + " algorithms x " +
         std::to_string(o.trials) + " points, " + std::to_string(setter.steps_per_run()) + " steps each (eval every " +
         std::to_string(setter.eval_every()) + "), then " + std::to_string(o.reruns) + " re-runs of the best; store " +
         store_path;
}

std::optional<nlohmann::ordered_json> set_targets(const TargetSetter& setter, StudyStore& store,
                                                  const WorkerOptions& worker, int threads) {
  auto run_studies = [&](const std::vector<StudyRecord>& studies) {
    if (!run_tuning_worker(store.path(), studies, worker).interrupted) return true;
    if (worker.progress) worker.progress->log("interrupted: the same command resumes from " + store.path());
    return false;
  };
  const auto search = plan_sweeps(store, setter.search_sweeps());
  if (!run_studies(search)) return std::nullopt;
  const auto reruns = plan_sweeps(store, {setter.rerun_sweep(store, search)});
  if (!run_studies(reruns)) return std::nullopt;
  std::optional<StepTiming> timing;
  if (setter.options().timing_steps > 0) {
    if (worker.progress)
      worker.progress->log("timing the best point alone: " + std::to_string(setter.options().timing_steps) + " steps");
    timing = time_best_point(store, reruns, setter.options().timing_steps, threads, worker.stop_requested);
    if (!timing) return std::nullopt;
  }
  return setter.record(store, search, reruns, timing);
}

std::string target_summary(const nlohmann::ordered_json& record, const TargetSettingOptions& options,
                           const std::string& record_path) {
  const auto& range = record["rerun_best_validation"];
  auto g = [](const char* format, const nlohmann::ordered_json& v) { return format_double(format, v.get<double>()); };
  std::string s = "workload:           " + options.workload + " (" + record["metric"].get<std::string>() + ", " +
                  (record["higher_is_better"].get<bool>() ? "higher is better" : "lower is better") + ")\n";
  s += "best point:         " + record["best_point"]["algorithm"].get<std::string>() + " " +
       record["best_point"]["hparams"].dump() + "\n";
  s += "re-runs' best:      min " + g("%.4g", range["min"]) + ", median " + g("%.4g", range["median"]) + ", max " +
       g("%.4g", range["max"]) + "\n";
  s += "validation target:  " + g("%.4g", record["validation_target"]) + "\n";
  s += "test target:        " +
       (record["test_target"].is_null() ? std::string("none (no re-run reached the validation target)")
                                        : g("%.4g", record["test_target"])) +
       "\n";
  const std::string factor = format_double("%.3g", options.budget_factor);
  if (record.contains("budget_basis")) {
    const auto& basis = record["budget_basis"];
    s += "budget:             " + g("%.4g", record["budget_s"]) + " s (" + factor + " x median steps to target " +
         g("%.6g", basis["median_steps_to_target"]) + " x " + g("%.4g", basis["seconds_per_step_alone"]) +
         " s per step alone; from the re-runs' times it would be " + g("%.4g", record["budget_under_load_s"]) + " s)\n";
  } else {
    s += "budget:             " + g("%.4g", record["budget_s"]) + " s (" + factor + " x median time to target " +
         g("%.4g", record["median_time_to_target_s"]) + " s)\n";
  }
  if (!record_path.empty()) s += "record:             " + record_path + "\n";
  return s;
}

}  // namespace pacer
