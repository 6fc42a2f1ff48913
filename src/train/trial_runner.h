#pragma once
// The trial runner: one training run of (workload, algorithm, hyperparameters, seed) under the
// AlgoPerf timing protocol. Set-up is untimed; data selection + update are timed; evals run at
// the eval period (first right after step 1) with the clock paused; prepare_for_eval is timed;
// the budget is checked at evals; goals are sticky; the run stops when both targets are reached,
// the budget is spent, the algorithm says it is complete, or a step limit is hit. A non-finite
// loss or parameter ends the trial as "diverged".
//
//   pacer::TrialOptions options;
//   options.seed = 1;
//   options.out_dir = "runs/demo";
//   pacer::TrialResult result = pacer::run_trial(*workload, *algorithm, hparams, options);
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/training_algorithm.h"
#include "core/clock.h"
#include "core/hyperparameters.h"
#include "core/progress.h"
#include "train/trial_result.h"
#include "workloads/workload.h"

namespace pacer {

// Stop as soon as an eval is strictly better than `value` on `metric` (e.g. "validation/accuracy"):
// scaling studies only need the first step that reaches their goal.
struct TrainingGoal {
  std::string metric;
  double value = 0.0;
  bool higher_is_better = true;
};

struct TrialOptions {
  uint64_t seed = 0;
  std::string device = "auto";
  std::string data_dir;             // empty: $PACER_DATA_DIR or the default
  int64_t eval_every_steps = 0;     // > 0: eval every N steps instead of every eval period
  // Non-empty (ascending): eval after exactly these steps (and the first and last) instead;
  // scaling studies space them geometrically, so steps-to-result has the same relative
  // resolution at every batch size.
  std::vector<int64_t> eval_at_steps;
  int64_t max_steps = 0;            // > 0: stop after this many steps
  std::optional<int64_t> batch_size;  // overrides the algorithm's choice (scaling studies)
  std::optional<double> time_budget;  // seconds; default: the workload's budget x budget_multiplier
  double budget_multiplier = 1.0;     // e.g. 1.5 under self-tuning
  std::string out_dir;              // empty: write no files
  bool stop_at_targets = true;     // false: train on to the budget/step limit (target-setting runs)
  int64_t prefetch = 2;             // batches gathered ahead on a background thread
  Clock* clock = nullptr;           // default: a steady clock
  Progress* progress = nullptr;     // default: none
  // Called after each eval is logged (the time it takes counts as logging time, off the clock);
  // the study store records measurements through it.
  std::function<void(const EvalRecord&)> on_eval;
  // Set (e.g. by a Ctrl-C handler) to stop after the current step: the result has
  // stop_reason "interrupted" and status failed.
  const std::atomic<bool>* stop_requested = nullptr;
  // > 0: at every eval (off the clock), estimate the gradient noise scale B_simple from one batch
  // split into this many shards; logged as the metric train/noise_scale (smoothed).
  int noise_scale_shards = 0;
  std::optional<TrainingGoal> goal;
  // The splits evaluated at each eval; empty: train, validation and test (the reference protocol).
  // A scaling study only needs the split of its goal, which makes its evals several times cheaper.
  std::vector<EvalSplit> eval_splits;
  // Data-parallel training (combiner, virtual workers, delta mode, the processes' communicator);
  // null: one worker. With processes, the batch size is global and only rank 0 writes files.
  std::shared_ptr<DataParallelPlan> data_parallel;
};

// `hparams`: the point to run (validated against the algorithm's declarations, defaults filled),
// or nullopt under self-tuning. Errors in the input (unknown hyperparameter, bad device) throw
// before training starts; a diverging run is a result, not an exception.
TrialResult run_trial(Workload& workload, TrainingAlgorithm& algorithm, const std::optional<Hyperparameters>& hparams,
                      const TrialOptions& options);

}  // namespace pacer
