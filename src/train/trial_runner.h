#pragma once
// The trial runner: one training run of (workload, algorithm, hyperparameters, seed) under the
// AlgoPerf timing protocol. Set-up is untimed; data selection + update are timed; evals run on
// the eval schedule (first right after step 1) with the clock paused; prepare_for_eval is timed;
// the budget is checked at evals; a target once reached stays reached; the stop rules end the run (both targets,
// the budget, the algorithm's "complete", the step limit, a study's goal, an interrupt). A
// non-finite loss, parameter or eval loss ends the trial as "diverged".
//
// The loop is made of parts, each in its own file: the trial spec (what to measure,
// catalog/trial_spec.h), the eval schedule (train/eval_schedule.h), the stop rules
// (train/stop_rule.h), the lock-step points of data-parallel processes (train/rank_sync.h) and
// the observers that log, record and show it (train/trial_observer.h).
//
//   pacer::TrialOptions options;
//   options.seed = 1;
//   options.spec.eval_every_steps = 100;
//   options.out_dir = "runs/demo";
//   pacer::TrialResult result = pacer::run_trial(*workload, *algorithm, hparams, options);
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/training_algorithm.h"
#include "catalog/trial_setup.h"
#include "core/clock.h"
#include "core/hyperparameters.h"
#include "core/progress.h"
#include "distributed/communicator.h"
#include "train/stop_rule.h"
#include "train/trial_observer.h"
#include "catalog/trial_result.h"
#include "workloads/workload.h"

namespace pacer {

// How one trial runs here: what it is (the TrialSetup: spec, seed, results folder, checkpoints,
// stop flag; catalog/trial_setup.h) and the hooks of the process running it.
struct TrialOptions : TrialSetup {
  int64_t prefetch = 2;          // batches gathered ahead on a background thread
  Clock* clock = nullptr;        // default: the spec's clock (wall: a steady clock)
  Progress* progress = nullptr;  // default: none
  // The data-parallel processes (c10d); null: this process alone. With processes the batch size
  // is global and only rank 0 evaluates and writes.
  std::shared_ptr<Communicator> communicator;
  // This process's rank among those on its machine: "auto" and "cuda" mean its own GPU.
  int local_rank = 0;
  std::vector<std::shared_ptr<TrialObserver>> observers;  // besides the writer and the progress
  StopRules extra_stop_rules;                              // after the spec's standard rules
  // A fresh instance of the trial's algorithm: delta mode over virtual workers gives every worker
  // its own optimizer state (the caller knows where its algorithm comes from: a name in the
  // registry, a plugin, a test's own class). Needed only there; refused without it.
  std::function<std::unique_ptr<TrainingAlgorithm>()> make_algorithm;
  // A contained trial's restrictions as its process reported them (data/contained_trial_files.h),
  // recorded in trial.json; empty for a trial run in process.
  std::string restrictions;
};

// `hparams`: the point to run (validated against the algorithm's declarations, defaults filled),
// or nullopt under self-tuning. Errors in the input (unknown hyperparameter, bad device) throw
// before training starts; a diverging run is a result, not an exception.
TrialResult run_trial(Workload& workload, TrainingAlgorithm& algorithm, const std::optional<Hyperparameters>& hparams,
                      const TrialOptions& options);

}  // namespace pacer
