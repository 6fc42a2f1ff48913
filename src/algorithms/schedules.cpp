#include "algorithms/schedules.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace pacer {

LearningRateSchedule LearningRateSchedule::constant(double lr) {
  LearningRateSchedule s;
  s.base_lr = lr;
  return s;
}

LearningRateSchedule LearningRateSchedule::warmup_cosine(double lr, int64_t warmup_steps, int64_t step_hint) {
  LearningRateSchedule s;
  s.kind = Kind::warmup_cosine;
  s.base_lr = lr;
  s.warmup_steps = std::max<int64_t>(0, warmup_steps);
  s.decay_steps = std::max<int64_t>(1, step_hint - s.warmup_steps);
  return s;
}

LearningRateSchedule LearningRateSchedule::warmup_linear_decay(double lr, int64_t warmup_steps, int64_t decay_steps,
                                                               double end_factor) {
  LearningRateSchedule s;
  s.kind = Kind::warmup_linear_decay;
  s.base_lr = lr;
  s.warmup_steps = std::max<int64_t>(0, warmup_steps);
  s.decay_steps = std::max<int64_t>(0, decay_steps);
  s.end_factor = end_factor;
  return s;
}

double LearningRateSchedule::at(int64_t step) const {
  if (kind == Kind::constant) return base_lr;
  if (step < warmup_steps) return base_lr * static_cast<double>(step) / static_cast<double>(warmup_steps);
  const int64_t t = step - warmup_steps;
  if (kind == Kind::warmup_cosine) {
    if (t >= decay_steps) return 0.0;
    const double pi = std::acos(-1.0);
    return base_lr * 0.5 * (1.0 + std::cos(pi * static_cast<double>(t) / static_cast<double>(decay_steps)));
  }
  if (decay_steps == 0 || t >= decay_steps) return base_lr * end_factor;
  const double fraction = static_cast<double>(t) / static_cast<double>(decay_steps);
  return base_lr * (1.0 - fraction * (1.0 - end_factor));
}

std::string LearningRateSchedule::describe() const {
  std::ostringstream out;
  switch (kind) {
    case Kind::constant: out << "constant " << base_lr; break;
    case Kind::warmup_cosine:
      out << "warmup " << warmup_steps << " steps to " << base_lr << ", cosine to 0 over " << decay_steps << " steps";
      break;
    case Kind::warmup_linear_decay:
      out << "warmup " << warmup_steps << " steps to " << base_lr << ", linear decay to x" << end_factor << " over "
          << decay_steps << " steps";
      break;
  }
  return out.str();
}

}  // namespace pacer
