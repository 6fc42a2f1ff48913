#pragma once
// Learning-rate schedules of the AlgoPerf baselines, as pure functions of the step (0-based
// index of the update being taken).
//
//   auto s = pacer::LearningRateSchedule::warmup_cosine(0.002, /*warmup_steps=*/100, /*step_hint=*/2000);
//   double lr = s.at(step);
#include <cstdint>
#include <string>

#include "core/export.h"

namespace pacer {

struct PACER_API LearningRateSchedule {
  enum class Kind { constant, warmup_cosine, warmup_linear_decay };
  Kind kind = Kind::constant;
  double base_lr = 0.0;
  int64_t warmup_steps = 0;
  int64_t decay_steps = 0;  // cosine: steps from end of warmup to 0; linear: steps to reach end_factor
  double end_factor = 0.0;  // linear decay only

  static LearningRateSchedule constant(double lr);
  // Linear warmup 0 -> lr over warmup_steps, then cosine decay to 0 at step_hint, 0 after.
  static LearningRateSchedule warmup_cosine(double lr, int64_t warmup_steps, int64_t step_hint);
  // Linear warmup, then linear decay from lr to lr*end_factor over decay_steps, constant after.
  static LearningRateSchedule warmup_linear_decay(double lr, int64_t warmup_steps, int64_t decay_steps,
                                                  double end_factor);

  double at(int64_t step) const;
  std::string describe() const;
};

}  // namespace pacer
