#include "run/target_setting_run.h"

namespace pacer {

std::string target_setting_headline(const TargetSetter& setter, const std::string& store_path) {
  const TargetSettingOptions& o = setter.options();
  return "pacer targets: " + o.workload + ", " + std::to_string(o.algorithms.size()) + " algorithms x " +
         std::to_string(o.trials) + " points, " + std::to_string(setter.steps_per_run()) + " steps each (eval every " +
         std::to_string(setter.eval_every()) + "), then " + std::to_string(o.reruns) + " re-runs of the best; store " +
         store_path;
}

std::optional<nlohmann::ordered_json> set_targets(const TargetSetter& setter, StudyStore& store,
                                                  const WorkerOptions& worker) {
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
    // After the re-runs, so that it runs alone (a second process of the same command waits at
    // the re-runs' end for the same reason); stored, so that it runs once.
    const auto timing_studies = plan_sweeps(store, {setter.timing_sweep(store, reruns)});
    if (worker.progress && !store.progress({timing_studies.at(0).id}).finished())
      worker.progress->log("timing the best point alone: " + std::to_string(setter.options().timing_steps) + " steps");
    if (!run_studies(timing_studies)) return std::nullopt;
    timing = setter.timing(store, timing_studies);
  }
  return setter.record(store, search, reruns, timing);
}

}  // namespace pacer
