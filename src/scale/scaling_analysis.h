#pragma once
// Analysis of steps-to-result S(B) across batch sizes (torch-free):
// - scaling efficiency between consecutive measured batch sizes, as the log-log slope
//   e = ln(S(B1) / S(B2)) / ln(B2 / B1): 1 when doubling the batch halves the steps (perfect
//   scaling), 0 when it saves none (maximal data parallelism);
// - a regime label per batch size from the efficiency of the step that reaches it:
//   perfect scaling (e >= 0.8), diminishing returns (0.2 <= e < 0.8), maximal data parallelism
//   (e < 0.2); the smallest batch size inherits the label of the first step;
// - the fit S(B) = S_min (1 + B_crit / B) by least squares on log S, with a bootstrap interval
//   over trials.
//
//   auto points = pacer::analyze_scaling({{64, 4000}, {128, 2000}, {256, 1100}, {512, 900}});
//   pacer::CriticalBatchFit fit = pacer::fit_critical_batch({{64, 4000.0}, ...});
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scale/steps_to_result.h"

namespace pacer {

struct RegimeThresholds {
  double perfect = 0.8;  // efficiency at or above: perfect scaling
  double maximal = 0.2;  // efficiency below: maximal data parallelism
};

enum class ScalingRegime { perfect, diminishing, maximal, unknown };
const char* to_string(ScalingRegime regime);

struct ScalingPoint {
  int64_t batch_size = 0;
  std::optional<int64_t> steps;        // steps-to-result; none: never reached
  std::optional<double> efficiency;    // from the previous measured batch size
  ScalingRegime regime = ScalingRegime::unknown;
};

// `steps` by batch size (ascending by key); batch sizes without a result get no efficiency.
std::vector<ScalingPoint> analyze_scaling(const std::map<int64_t, std::optional<int64_t>>& steps,
                                          const RegimeThresholds& thresholds = {});

struct CriticalBatchFit {
  double s_min = 0.0;
  double b_crit = 0.0;
  double rms_log_error = 0.0;  // of the fit, on ln S
  int points = 0;
};

// Least squares on ln S over (B, S) pairs; needs at least two points. B_crit is searched on a
// log grid over [B_min / 1000, B_max * 1000] and refined; S_min is closed-form given B_crit.
CriticalBatchFit fit_critical_batch(const std::vector<std::pair<double, double>>& points);

struct CriticalBatchInterval {
  CriticalBatchFit fit;           // on all trials
  double b_crit_low = 0.0, b_crit_high = 0.0;  // 2.5 / 97.5 percentiles
  double s_min_low = 0.0, s_min_high = 0.0;
  int resamples = 0;              // resamples with at least three reached batch sizes
};

// Bootstrap over trials: at each batch size, resample its trials with replacement, recompute
// steps-to-result, refit. Deterministic for a given seed. None when fewer than three batch sizes
// reach the goal (two points fit the two parameters exactly, with nothing left to check them).
std::optional<CriticalBatchInterval> bootstrap_critical_batch(
    const std::map<int64_t, std::vector<ScalingTrial>>& trials_by_batch, double goal, bool higher_is_better,
    int resamples = 500, uint64_t seed = 0);

}  // namespace pacer
