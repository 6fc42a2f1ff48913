#pragma once
// AlgoPerf's target-setting procedure, scaled to fit a workstation, through the study store (so
// it resumes where it stopped): (1) a quasi-random search of each target-setting algorithm
// (AdamW, NAdamW, heavy ball, Nesterov) trained to a fraction of the step hint (0.75 in
// AlgoPerf) with targets ignored; (2) the point with the best validation value over all of them;
// (3) that point re-run with fresh seeds; (4) validation target = the median over the re-runs of
// each run's best validation value; test target = the worst test value, at its best validation
// eval, among the re-runs that reach the validation target; (5) budget = budget_factor x the
// median step at which the re-runs first reached the validation target x the best point's
// seconds per step timed alone after the re-runs (steps do not depend on what else ran on the
// machine, the re-runs' seconds do); without a timing run, budget_factor x their median time.
// The timing run is a stored trial like the others, so a second call changes nothing and a
// finished procedure's record can be read without training (read_targets, `--no-run`).
//
//   pacer::TargetSettingOptions o;
//   o.workload = "fmnist_resnet";
//   pacer::TargetSetter setter(o);
//   pacer::StudyStore store("runs/targets.db");
//   auto search = pacer::plan_sweeps(store, setter.search_sweeps());   // then run a tuning worker
//   auto reruns = pacer::plan_sweeps(store, {setter.rerun_sweep(store, search)});
//   auto timing = pacer::plan_sweeps(store, {setter.timing_sweep(store, reruns)});  // run it too
//   nlohmann::ordered_json record = setter.record(store, search, reruns, setter.timing(store, timing));
//   // or, all of it finished, from the store alone (writes nothing):
//   nlohmann::ordered_json same = pacer::read_targets(setter, store);
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tune/sweep.h"

namespace pacer {

struct TargetSettingOptions {
  std::string workload;
  std::vector<std::string> algorithms = {"adamw", "nadamw", "momentum", "nesterov"};
  std::string space_dir = "spaces";  // the search space of algorithm A is <space_dir>/A.json
  int64_t trials = 8;                // quasi-random points per algorithm
  int64_t reruns = 5;                // seeds of the best point
  double step_fraction = 0.75;       // steps per run = step_fraction x step hint
  int64_t step_hint = 0;             // 0: the workload's
  int64_t eval_every = 0;            // 0: a twentieth of the steps per run
  double budget_factor = 3.0;
  int64_t timing_steps = 100;        // steps of the timing run of the best point (0: none)
  uint64_t seed = 0;
  TrialSpec trial;                   // device, data dir
};

// One run (a stored trial) as the procedure sees it.
struct TargetRun {
  std::string algorithm;
  int64_t trial_index = 0;
  uint64_t seed = 0;
  std::string hparams_json;
  std::string status;                      // complete, diverged, failed
  std::optional<double> best_validation;   // best validation value over the evals
  std::optional<double> test_at_best;      // test value at that eval
  int64_t best_step = 0;
  std::vector<std::pair<double, double>> validation_curve;  // (submission time, validation value)
  std::vector<int64_t> validation_steps;                    // the global step of each curve point
};

// The best point's training speed measured alone, for the budget.
struct StepTiming {
  double seconds_per_step = 0.0;
  std::string measured_with;  // how: steps, threads, seed
};

class TargetSetter {
 public:
  explicit TargetSetter(TargetSettingOptions options);  // InputError for bad options

  const TargetSettingOptions& options() const { return options_; }
  int64_t steps_per_run() const { return steps_; }
  int64_t eval_every() const { return eval_every_; }

  std::vector<SweepSpec> search_sweeps() const;
  // The re-run sweep of the best search point (InputError when no search run finished with a
  // finite validation value).
  SweepSpec rerun_sweep(const StudyStore& store, const std::vector<StudyRecord>& search) const;
  // The timing run (options().timing_steps > 0): one trial of the re-runs' point and settings,
  // timing_steps steps, one eval at the end.
  SweepSpec timing_sweep(const StudyStore& store, const std::vector<StudyRecord>& reruns) const;
  // The best point's seconds per step from the stored timing run (Error when it did not train).
  StepTiming timing(const StudyStore& store, const std::vector<StudyRecord>& timing_studies) const;
  std::vector<TargetRun> runs(const StudyStore& store, const std::vector<StudyRecord>& studies) const;
  // The target record (JSON): the procedure, every run behind it, the targets and the budget
  // (from the timing when given, else from the re-runs' times).
  nlohmann::ordered_json record(const StudyStore& store, const std::vector<StudyRecord>& search,
                                const std::vector<StudyRecord>& reruns,
                                const std::optional<StepTiming>& timing = std::nullopt) const;

 private:
  bool better(double a, double b) const;
  TargetSettingOptions options_;
  int64_t steps_ = 0, eval_every_ = 0;
  std::string metric_;
  bool higher_is_better_ = true;
};

// The record of a finished procedure from what the store holds, writing nothing (`pacer targets
// --no-run`): InputError naming the part that is not stored or not finished.
nlohmann::ordered_json read_targets(const TargetSetter& setter, const StudyStore& store);

// The record in a few lines: workload and metric, the best point, the re-runs' best values, the
// targets, the budget and how it was computed, and `record_path` when one was written.
std::string target_summary(const nlohmann::ordered_json& record, const TargetSettingOptions& options,
                           const std::string& record_path);

}  // namespace pacer
