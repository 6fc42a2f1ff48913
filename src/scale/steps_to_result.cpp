#include "scale/steps_to_result.h"

#include <cmath>

namespace pacer {

std::optional<int64_t> first_step_better_than(const ScalingTrial& trial, double goal, bool higher_is_better) {
  for (const auto& [step, value] : trial.evals) {
    if (!std::isfinite(value)) continue;
    if (higher_is_better ? value > goal : value < goal) return step;
  }
  return std::nullopt;
}

StepsToResult steps_to_result(const std::vector<ScalingTrial>& trials, double goal, bool higher_is_better) {
  StepsToResult r;
  for (const auto& t : trials) {
    ++r.trials;
    if (t.diverged) {
      ++r.diverged;
      continue;
    }
    const auto step = first_step_better_than(t, goal, higher_is_better);
    if (!step) continue;
    ++r.reached;
    if (!r.steps || *step < *r.steps || (*step == *r.steps && t.trial_id < *r.trial_id)) {
      r.steps = step;
      r.trial_id = t.trial_id;
    }
  }
  return r;
}

}  // namespace pacer
