#include "train/stop_rule.h"

#include <cmath>
#include <string>

namespace pacer {


std::shared_ptr<const StopRule> stop_at_targets() {
  return stop_rule_from(StopReason::targets_reached,
              [](const TrialProgress& p) { return p.state.validation_target_reached && p.state.test_target_reached; });
}

std::shared_ptr<const StopRule> stop_when_out_of_time() {
  return stop_rule_from(StopReason::budget, [](const TrialProgress& p) { return !p.time_remaining; });
}

std::shared_ptr<const StopRule> stop_when_training_complete() {
  return stop_rule_from(StopReason::training_complete, [](const TrialProgress& p) { return p.training_complete; });
}

std::shared_ptr<const StopRule> stop_after_steps(int64_t max_steps) {
  return stop_rule_from(StopReason::max_steps, [max_steps](const TrialProgress& p) { return p.state.step >= max_steps; });
}

std::shared_ptr<const StopRule> stop_at_goal(TrainingGoal goal) {
  return stop_rule_from(StopReason::goal_reached, [goal](const TrialProgress& p) {
    if (p.state.evals.empty()) return false;
    const auto& metrics = p.state.evals.back().metrics;
    const auto it = metrics.find(goal.metric);
    return it != metrics.end() && goal.reached_by(it->second);
  });
}

std::shared_ptr<const StopRule> stop_when_interrupted() {
  return stop_rule_from(StopReason::interrupted, [](const TrialProgress& p) { return p.interrupted; });
}

StopRules standard_stop_rules(const TrialSpec& spec) {
  StopRules rules;
  if (spec.stop_at_targets) rules.push_back(stop_at_targets());
  rules.push_back(stop_when_out_of_time());
  rules.push_back(stop_when_training_complete());
  if (spec.max_steps > 0) rules.push_back(stop_after_steps(spec.max_steps));
  if (spec.goal) rules.push_back(stop_at_goal(*spec.goal));
  rules.push_back(stop_when_interrupted());
  return rules;
}

std::optional<StopReason> first_stop(const StopRules& rules, const TrialProgress& progress) {
  for (const auto& r : rules) {
    if (auto reason = r->check(progress)) return reason;
  }
  return std::nullopt;
}

}  // namespace pacer
