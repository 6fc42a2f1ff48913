#pragma once
// The simple gradient noise scale B_simple = tr(Sigma) / |G|^2 (McCandlish et al.), estimated
// with the two-batch-size method: for gradients of the mean loss over b examples,
// E|g_b|^2 = |G|^2 + tr(Sigma) / b, so norms at two batch sizes give unbiased estimates
//   |G|^2    ~ (B_big |g_big|^2 - B_small |g_small|^2) / (B_big - B_small)
//   tr(Sigma) ~ (|g_small|^2 - |g_big|^2) / (1 / B_small - 1 / B_big).
// Each estimate is noisy; B_simple is the ratio of their exponential moving averages (the ratio
// of averages, not the average of ratios, which is biased). Torch-free: the measurement of the
// norms is train/gradient_norms.h.
//
//   pacer::NoiseScaleEstimator estimator;
//   estimator.add({16, 0.41, 128, 0.07});   // per-shard and full-batch squared norms
//   double b = estimator.b_simple();
#include <cstdint>
#include <optional>

namespace pacer {

struct GradientNormSample {
  int64_t small_batch = 0;   // examples per shard
  double small_sq = 0.0;     // mean over shards of |g_shard|^2
  int64_t big_batch = 0;     // examples in the whole batch
  double big_sq = 0.0;       // |g_batch|^2
};

class NoiseScaleEstimator {
 public:
  // smoothing: weight of the history in the moving averages (0: last sample only). The first
  // samples are bias-corrected as in Adam, so early values are averages, not shrunk to zero.
  explicit NoiseScaleEstimator(double smoothing = 0.9) : smoothing_(smoothing) {}
  void add(const GradientNormSample& sample);
  int samples() const { return samples_; }
  std::optional<double> trace_sigma() const;     // smoothed tr(Sigma)
  std::optional<double> gradient_sq() const;     // smoothed |G|^2
  std::optional<double> b_simple() const;        // none until |G|^2 is positive

 private:
  double smoothing_;
  double trace_ema_ = 0.0, gradient_ema_ = 0.0, weight_ = 0.0;
  int samples_ = 0;
};

}  // namespace pacer
