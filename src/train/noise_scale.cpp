#include "train/noise_scale.h"

#include "core/error.h"

namespace pacer {

void NoiseScaleEstimator::add(const GradientNormSample& s) {
  if (s.small_batch <= 0 || s.big_batch <= s.small_batch) {
    throw Error("noise scale: the whole batch must be larger than a shard");
  }
  const double b_small = static_cast<double>(s.small_batch), b_big = static_cast<double>(s.big_batch);
  const double gradient = (b_big * s.big_sq - b_small * s.small_sq) / (b_big - b_small);
  const double trace = (s.small_sq - s.big_sq) / (1.0 / b_small - 1.0 / b_big);
  trace_ema_ = smoothing_ * trace_ema_ + (1.0 - smoothing_) * trace;
  gradient_ema_ = smoothing_ * gradient_ema_ + (1.0 - smoothing_) * gradient;
  weight_ = smoothing_ * weight_ + (1.0 - smoothing_);
  ++samples_;
}

std::optional<double> NoiseScaleEstimator::trace_sigma() const {
  if (samples_ == 0) return std::nullopt;
  return trace_ema_ / weight_;
}

std::optional<double> NoiseScaleEstimator::gradient_sq() const {
  if (samples_ == 0) return std::nullopt;
  return gradient_ema_ / weight_;
}

std::optional<double> NoiseScaleEstimator::b_simple() const {
  const auto g = gradient_sq(), t = trace_sigma();
  if (!g || !t || *g <= 0.0) return std::nullopt;
  return *t / *g;
}

}  // namespace pacer
