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
#include <utility>
#include <vector>

#include "algorithms/runner_state.h"
#include "core/stop_reason.h"
#include "catalog/trial_spec.h"
#include "catalog/workload_spec.h"

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

// A rule from a predicate on the progress (the built-ins below and racing's, run/racing.h, are each
// one of these): it fires with `reason` when the predicate holds.
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
std::shared_ptr<const StopRule> stop_rule_from(StopReason reason, Predicate predicate) {
  return std::make_shared<PredicateRule<Predicate>>(reason, std::move(predicate));
}

std::shared_ptr<const StopRule> stop_at_targets();              // validation and test goals reached
std::shared_ptr<const StopRule> stop_when_out_of_time();         // the budget is spent
std::shared_ptr<const StopRule> stop_when_training_complete();   // the algorithm is done
std::shared_ptr<const StopRule> stop_after_steps(int64_t max_steps);
std::shared_ptr<const StopRule> stop_at_goal(TrainingGoal goal); // the last eval is strictly better
std::shared_ptr<const StopRule> stop_when_interrupted();
// The rules of a trial spec, in the order that decides the reason when several fire at once:
// targets (unless stop_at_targets is off), budget, training complete, step limit, goal, interrupt.
StopRules standard_stop_rules(const TrialSpec& spec);

// The first rule that fires, if any.
std::optional<StopReason> first_stop(const StopRules& rules, const TrialProgress& progress);

}  // namespace pacer
