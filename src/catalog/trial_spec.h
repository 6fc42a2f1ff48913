#pragma once
// Everything that decides what a trial measures, apart from the workload, the algorithm, its
// hyperparameters and the seed: the device and data, the eval cadence, the limits, the batch
// size, a scaling study's goal, the evaluated splits and data parallelism. Torch-free: the CLI
// fills it, the study store keeps it as JSON (a sweep's trials share one), and run_trial reads it.
//
//   pacer::TrialSpec spec;
//   spec.eval_every_steps = 100;
//   spec.max_steps = 2000;
//   spec.data_parallel.combine = "adasum";
//   std::string stored = spec.to_json();
//   pacer::TrialSpec again = pacer::TrialSpec::from_json(stored);
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "catalog/data_parallel_spec.h"
#include "catalog/workload_options.h"
#include "catalog/workload_spec.h"

namespace pacer {

// Stop as soon as an eval is strictly better than `value` on `metric` (e.g. "validation/accuracy"):
// scaling studies only need the first step that reaches their goal.
struct TrainingGoal {
  std::string metric;
  double value = 0.0;
  bool higher_is_better = true;

  bool reached_by(double v) const { return higher_is_better ? v > value : v < value; }
};

// InputError unless the steps are positive and strictly increasing (eval_at_steps).
void validate_eval_steps(const std::vector<int64_t>& steps);

struct TrialSpec {
  std::string device = "auto";
  std::string data_dir;               // empty: $PACER_DATA_DIR or the default
  int64_t eval_every_steps = 0;       // > 0: eval every N steps instead of every eval period
  // Non-empty (ascending): eval after exactly these steps (and the first and last) instead;
  // scaling studies space them geometrically, so steps-to-result has the same relative
  // resolution at every batch size.
  std::vector<int64_t> eval_at_steps;
  int64_t max_steps = 0;              // > 0: stop after this many steps
  std::optional<int64_t> batch_size;  // overrides the algorithm's choice (scaling studies)
  std::optional<double> time_budget;  // seconds; default: the workload's budget x budget_multiplier
  // Unset: the ruleset's, which the use-case fills in (1, or the rules' under self-tuning: 1.5 in
  // v0.6); set: --budget-multiplier. Stored resolved.
  std::optional<double> budget_multiplier;
  bool stop_at_targets = true;        // false: train on to the budget/step limit (target setting)
  // > 0: at every eval (off the clock), estimate the gradient noise scale B_simple from one batch
  // split into this many shards; logged as the metric train/noise_scale (smoothed).
  int noise_scale_shards = 0;
  std::optional<TrainingGoal> goal;   // stop at the first eval strictly better
  // The splits evaluated at each eval; empty: train, validation and test (the reference protocol).
  // A scaling study only needs the split of its goal, which makes its evals several times cheaper.
  std::vector<EvalSplit> eval_splits;
  DataParallelSpec data_parallel;
  // The workload's model options (catalog/workload_options.h), e.g. {"activation": "tanh"}:
  // the scientific hyperparameter of an incremental tuning round.
  WorkloadOptions workload_options;
  // What submission time is measured by: the wall clock (AlgoPerf's) or this process's CPU time,
  // which a second job on the machine barely bends (the board's default).
  ClockKind clock = ClockKind::wall;

  // InputError naming the field for values no trial can run with.
  void validate() const;
  // The budget a trial of `workload` runs under.
  double resolved_time_budget(const WorkloadSpec& workload) const {
    return time_budget ? *time_budget : workload.time_budget * budget_multiplier.value_or(1.0);
  }
  // Wall-clock seconds a process that runs only this trial may take before it is killed (pacer
  // tune's trial processes, pacer run's contained copy): 4 x the budget + 120 s. The budget is on
  // the trial's clock and excludes evals, start-up and data loading, which this leaves room for.
  double process_limit_sec(const WorkloadSpec& workload) const { return 4.0 * resolved_time_budget(workload) + 120.0; }
  // "every 2 s", "every 200 steps" or "12 given steps up to 4096" (meta_data_0.json).
  std::string describe_eval_cadence(const WorkloadSpec& workload) const;

  // The stored form: the study store's trial_spec column, and the "trial_settings" entry of a
  // sweep's identity (tune/sweep.cpp; that key stays, or every stored study would get a new
  // identity). Optional parts are written only when set, so stored identities stay as they were.
  std::string to_json() const;
  static TrialSpec from_json(const std::string& text);  // Error naming the field
};

}  // namespace pacer
