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

std::shared_ptr<const StopRule> stop_when_outraced(WorkloadSpec workload,
                                                   std::shared_ptr<const std::atomic<int64_t>> best_eval_index) {
  const std::string key = "validation/" + workload.target_metric;
  return rule(StopReason::race_study_best, [workload = std::move(workload), best_eval_index, key](const TrialProgress& p) {
    const int64_t bound = best_eval_index->load();
    const auto& evals = p.state.evals;
    if (bound < 0 || static_cast<int64_t>(evals.size()) <= bound) return false;
    for (int64_t i = 0; i <= bound; ++i) {
      const EvalRecord& e = evals[static_cast<size_t>(i)];
      // As compute_targets: an eval past the budget does not count.
      if (p.state.time_budget > 0 && e.accumulated_submission_time > p.state.time_budget) break;
      auto v = e.metrics.find(key);
      if (v != e.metrics.end() && std::isfinite(v->second) &&
          workload.reached(v->second, workload.validation_target, /*strict=*/false)) {
        return false;  // reached at or before the best index: it may still be (or tie) the best
      }
    }
    return true;
  });
}

std::shared_ptr<const StopRule> stop_past_the_cutoff(WorkloadSpec workload, double eval_period_sec,
                                                     std::shared_ptr<const FastestBound> fastest) {
  const std::string key = "validation/" + workload.target_metric;
  constexpr double kRMax = 4.0;
  // The bookkeeping between an eval's end and the next step (microseconds) is not submission
  // time; a thousandth of the period covers it.
  const double min_gap = eval_period_sec * (1.0 - 1e-3);
  return rule(StopReason::race_4x_fastest, [workload = std::move(workload), min_gap, fastest, key](const TrialProgress& p) {
    if (min_gap <= 0) return false;
    const double f_sec = fastest->seconds.load(), f_steps = fastest->steps.load();
    if (!std::isfinite(f_sec) || !std::isfinite(f_steps)) return false;
    const auto& s = p.state;
    if (s.accumulated_submission_time <= kRMax * f_sec || static_cast<double>(s.step) <= kRMax * f_steps) return false;
    const auto next_index = static_cast<double>(s.evals.size());
    if (next_index * min_gap <= kRMax * f_sec) return false;
    for (const EvalRecord& e : s.evals) {
      if (s.time_budget > 0 && e.accumulated_submission_time > s.time_budget) break;
      auto v = e.metrics.find(key);
      if (v != e.metrics.end() && std::isfinite(v->second) &&
          workload.reached(v->second, workload.validation_target, /*strict=*/false)) {
        return false;  // it has its time to target already
      }
    }
    return true;
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
