#include "train/eval_schedule.h"

#include <algorithm>

#include "core/error.h"

namespace pacer {

bool PeriodicEvalCadence::due(int64_t, double now, double last_eval_end) const { return now - last_eval_end >= period_; }

EveryNStepsCadence::EveryNStepsCadence(int64_t every) : every_(every) {
  if (every < 1) throw InputError("eval every N steps: N must be at least 1 (got " + std::to_string(every) + ")");
}

bool EveryNStepsCadence::due(int64_t step, double, double) const { return step % every_ == 0; }

AtStepsCadence::AtStepsCadence(std::vector<int64_t> steps) : steps_(std::move(steps)) { validate_eval_steps(steps_); }

bool AtStepsCadence::due(int64_t step, double, double) const {
  return std::binary_search(steps_.begin(), steps_.end(), step);
}

std::unique_ptr<EvalCadence> make_eval_cadence(const TrialSpec& trial, const WorkloadSpec& workload) {
  if (!trial.eval_at_steps.empty()) return std::make_unique<AtStepsCadence>(trial.eval_at_steps);
  if (trial.eval_every_steps > 0) return std::make_unique<EveryNStepsCadence>(trial.eval_every_steps);
  return std::make_unique<PeriodicEvalCadence>(workload.eval_period_sec);
}

EvalSchedule::EvalSchedule(std::unique_ptr<EvalCadence> cadence, int64_t max_steps)
    : cadence_(std::move(cadence)), max_steps_(max_steps) {}

bool EvalSchedule::due(int64_t step, double now, double last_eval_end, bool training_complete) const {
  if (step == 1 || training_complete || (max_steps_ > 0 && step >= max_steps_)) return true;
  return cadence_->due(step, now, last_eval_end);
}

}  // namespace pacer
