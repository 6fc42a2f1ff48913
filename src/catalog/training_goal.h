#pragma once
// A goal of the user's own (`pacer run --goal`, `pacer scale --goal/--metric`), resolved against
// the workload that is to reach it: the metric's full name, its value and which way is better.
// The direction comes from the metric, not from the workload's target: a goal on validation loss
// is reached below its value even on a workload whose target is an accuracy.
//
//   const pacer::TrainingGoal goal = pacer::resolve_training_goal(workload_spec("fmnist_mlp"), "loss", 0.35);
//   // goal.metric == "validation/loss", goal.higher_is_better == false
//   goal.reached_by(0.33);  // true
#include <optional>
#include <string>
#include <vector>

#include "catalog/trial_spec.h"
#include "catalog/workload_spec.h"

namespace pacer {

// `metric`: "SPLIT/NAME", or "NAME" for validation/NAME; empty: the workload's target metric.
// `value`: empty only for the target metric, whose value is then the workload's validation target.
// InputError naming --metric or --goal for a metric the workload does not report, a goal on
// another metric without a value, and a value no eval can reach (an accuracy above 1, a negative
// loss).
TrainingGoal resolve_training_goal(const WorkloadSpec& spec, const std::string& metric, std::optional<double> value);

// InputError naming --metric unless `splits` (empty: all three) include the goal's split: no eval
// would measure it.
void check_goal_is_evaluated(const TrainingGoal& goal, const std::vector<EvalSplit>& splits);

// Whether a larger value of metric NAME (without its split) is better: the workload's target
// metric by the workload's own direction, then by name (accuracy, ssim, mean average precision,
// bleu: higher; losses, perplexity, bits per byte, error and word error rates, gradient norms:
// lower); a name neither knows takes the workload's direction.
bool metric_higher_is_better(const WorkloadSpec& spec, const std::string& name);

}  // namespace pacer
