#include "train/stop_rule.h"

#include <cmath>
#include <string>

namespace pacer {
namespace {

// One small rule from a predicate, so each built-in is one line below.
template <typename Predicate>
class PredicateRule : public StopRule {
 public:
  PredicateRule(StopReason reason, Predicate predicate) : reason_(reason), predicate_(std::move(predicate)) {}
  std::optional<StopReason> check(const TrialProgress& p) const override {
    return predicate_(p) ? std::optional<StopReason>(reason_) : std::nullopt;
  }

 private:
  StopReason reason_;
  Predicate predicate_;
};

template <typename Predicate>
std::shared_ptr<const StopRule> rule(StopReason reason, Predicate predicate) {
  return std::make_shared<PredicateRule<Predicate>>(reason, std::move(predicate));
}

}  // namespace

std::shared_ptr<const StopRule> stop_at_targets() {
  return rule(StopReason::targets_reached,
              [](const TrialProgress& p) { return p.state.validation_target_reached && p.state.test_target_reached; });
}

std::shared_ptr<const StopRule> stop_when_out_of_time() {
  return rule(StopReason::budget, [](const TrialProgress& p) { return !p.time_remaining; });
}

std::shared_ptr<const StopRule> stop_when_training_complete() {
  return rule(StopReason::training_complete, [](const TrialProgress& p) { return p.training_complete; });
}

std::shared_ptr<const StopRule> stop_after_steps(int64_t max_steps) {
  return rule(StopReason::max_steps, [max_steps](const TrialProgress& p) { return p.state.step >= max_steps; });
}

std::shared_ptr<const StopRule> stop_at_goal(TrainingGoal goal) {
  return rule(StopReason::goal_reached, [goal](const TrialProgress& p) {
    if (p.state.evals.empty()) return false;
    const auto& metrics = p.state.evals.back().metrics;
    const auto it = metrics.find(goal.metric);
    return it != metrics.end() && goal.reached_by(it->second);
  });
}

std::shared_ptr<const StopRule> stop_when_interrupted() {
  return rule(StopReason::interrupted, [](const TrialProgress& p) { return p.interrupted; });
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
