#pragma once
// Rules that end a trial, checked in order after every step (the first that fires names the
// stop reason). The standard ones are AlgoPerf's (both targets, the budget, the algorithm's
// "training complete") and the spec's limits (step limit, a study's goal, an interrupt); a study
// or an algorithm can add its own. Rules read the runner's state; across processes rank 0
// decides at evals and the others follow. Torch-free.
//
//   class StopAtLoss : public pacer::StopRule {
//     std::optional<pacer::StopReason> check(const pacer::TrialProgress& p) const override {
//       if (p.state.evals.empty() || p.state.evals.back().metrics.at("train/loss") > 0.1) return std::nullopt;
//       return pacer::StopReason::goal_reached;
//     }
//   };
#include <memory>
#include <optional>
#include <vector>

#include <atomic>

#include <limits>

#include "algorithms/runner_state.h"
#include "train/stop_reason.h"
#include "train/trial_spec.h"
#include "workloads/workload_spec.h"

namespace pacer {

// What a rule sees after a step.
struct TrialProgress {
  const RunnerState& state;
  bool time_remaining = true;     // the budget is not spent (checked after every step and eval preparation)
  bool training_complete = false; // the algorithm's last update said so
  bool interrupted = false;       // a stop was requested (on any rank)
};

class StopRule {
 public:
  virtual ~StopRule() = default;
  virtual std::optional<StopReason> check(const TrialProgress& progress) const = 0;
};

using StopRules = std::vector<std::shared_ptr<const StopRule>>;

std::shared_ptr<const StopRule> stop_at_targets();              // validation and test goals reached
std::shared_ptr<const StopRule> stop_when_out_of_time();         // the budget is spent
std::shared_ptr<const StopRule> stop_when_training_complete();   // the algorithm is done
std::shared_ptr<const StopRule> stop_after_steps(int64_t max_steps);
std::shared_ptr<const StopRule> stop_at_goal(TrainingGoal goal); // the last eval is strictly better
std::shared_ptr<const StopRule> stop_when_interrupted();
// Racing, exact on both time axes: a study's best trial is the one that reached the target at
// the smallest eval index (then the smaller time or step count), so a trial whose evals up to
// index B (the best index among the study's finished trials, held in `best_eval_index`; -1: none
// yet; the caller refreshes it) all missed the target can only reach later and never be picked.
// It stops at its first eval or step past that point (reason race_study_best). "Reached" is the
// scoring rule (>= / <=, evals within the budget), not the strict in-run check.
std::shared_ptr<const StopRule> stop_when_outraced(WorkloadSpec workload,
                                                   std::shared_ptr<const std::atomic<int64_t>> best_eval_index);

// The bound of AlgoPerf's performance-ratio cut-off (r_max = 4): upper bounds F on the fastest
// median time to target (seconds and steps) that any other submission compared with this one
// will end with on this workload; infinite while unknown. The caller refreshes them.
struct FastestBound {
  std::atomic<double> seconds{std::numeric_limits<double>::infinity()};
  std::atomic<double> steps{std::numeric_limits<double>::infinity()};
};
// Racing by the cut-off, exact on the seconds axis (docs/tuning.md, "Racing"): stops a trial
// that has not reached the target once its submission time and steps are past 4 F on both axes
// AND its next eval index i satisfies i x eval_period > 4 F seconds: no trial of its study can
// then reach at an index at or above i in under 4 F, so this trial, had it reached later, could
// only have replaced a study time above 4 F by another above 4 F (ratio > 4 either way).
// `eval_period_sec` <= 0 (evals by steps): never fires. Reason race_4x_fastest.
std::shared_ptr<const StopRule> stop_past_the_cutoff(WorkloadSpec workload, double eval_period_sec,
                                                     std::shared_ptr<const FastestBound> fastest);

// The rules of a trial spec, in the order that decides the reason when several fire at once:
// targets (unless stop_at_targets is off), budget, training complete, step limit, goal, interrupt.
StopRules standard_stop_rules(const TrialSpec& spec);

// The first rule that fires, if any.
std::optional<StopReason> first_stop(const StopRules& rules, const TrialProgress& progress);

}  // namespace pacer
