#include "scale/scaling_analysis.h"

#include <algorithm>
#include <cmath>

#include "core/seed.h"

namespace pacer {

const char* to_string(ScalingRegime regime) {
  switch (regime) {
    case ScalingRegime::perfect: return "perfect scaling";
    case ScalingRegime::diminishing: return "diminishing returns";
    case ScalingRegime::maximal: return "maximal data parallelism";
    case ScalingRegime::unknown: return "-";
  }
  return "-";
}

std::vector<ScalingPoint> analyze_scaling(const std::map<int64_t, std::optional<int64_t>>& steps,
                                          const RegimeThresholds& thresholds) {
  std::vector<ScalingPoint> points;
  for (const auto& [b, s] : steps) points.push_back({b, s, std::nullopt, ScalingRegime::unknown});
  auto label = [&](double e) {
    if (e >= thresholds.perfect) return ScalingRegime::perfect;
    if (e < thresholds.maximal) return ScalingRegime::maximal;
    return ScalingRegime::diminishing;
  };
  const ScalingPoint* previous = nullptr;
  for (auto& p : points) {
    if (!p.steps) continue;
    if (previous) {
      p.efficiency = std::log(static_cast<double>(*previous->steps) / static_cast<double>(*p.steps)) /
                     std::log(static_cast<double>(p.batch_size) / static_cast<double>(previous->batch_size));
      p.regime = label(*p.efficiency);
    }
    previous = &p;
  }
  // The smallest measured batch size takes the regime of the first step.
  for (size_t i = 0; i < points.size(); ++i) {
    if (!points[i].steps) continue;
    for (size_t j = i + 1; j < points.size(); ++j) {
      if (points[j].efficiency) {
        points[i].regime = points[j].regime;
        break;
      }
    }
    break;
  }
  return points;
}

namespace {

// Given B_crit, the best ln S_min and the squared error.
std::pair<double, double> fit_given(const std::vector<std::pair<double, double>>& pts, double b_crit) {
  double mean = 0.0;
  for (const auto& [b, s] : pts) mean += std::log(s) - std::log1p(b_crit / b);
  mean /= static_cast<double>(pts.size());
  double sse = 0.0;
  for (const auto& [b, s] : pts) {
    const double r = std::log(s) - mean - std::log1p(b_crit / b);
    sse += r * r;
  }
  return {mean, sse};
}

}  // namespace

CriticalBatchFit fit_critical_batch(const std::vector<std::pair<double, double>>& points) {
  CriticalBatchFit fit;
  fit.points = static_cast<int>(points.size());
  if (points.size() < 2) return fit;
  double b_lo = points.front().first, b_hi = points.front().first;
  for (const auto& [b, s] : points) {
    b_lo = std::min(b_lo, b);
    b_hi = std::max(b_hi, b);
  }
  const double lo = std::log(b_lo / 1000.0), hi = std::log(b_hi * 1000.0);
  const int grid = 400;
  double best_x = lo, best_sse = INFINITY;
  for (int i = 0; i <= grid; ++i) {
    const double x = lo + (hi - lo) * i / grid;
    const double sse = fit_given(points, std::exp(x)).second;
    if (sse < best_sse) {
      best_sse = sse;
      best_x = x;
    }
  }
  // Golden-section refinement around the best grid point.
  double a = best_x - (hi - lo) / grid, c = best_x + (hi - lo) / grid;
  const double phi = 0.5 * (std::sqrt(5.0) - 1.0);
  for (int it = 0; it < 80; ++it) {
    const double x1 = c - phi * (c - a), x2 = a + phi * (c - a);
    if (fit_given(points, std::exp(x1)).second < fit_given(points, std::exp(x2)).second) c = x2;
    else a = x1;
  }
  fit.b_crit = std::exp(0.5 * (a + c));
  const auto [log_s_min, sse] = fit_given(points, fit.b_crit);
  fit.s_min = std::exp(log_s_min);
  fit.rms_log_error = std::sqrt(sse / static_cast<double>(points.size()));
  return fit;
}

std::optional<CriticalBatchInterval> bootstrap_critical_batch(
    const std::map<int64_t, std::vector<ScalingTrial>>& trials_by_batch, double goal, bool higher_is_better,
    int resamples, uint64_t seed) {
  std::vector<std::pair<double, double>> all;
  for (const auto& [b, trials] : trials_by_batch) {
    const auto r = steps_to_result(trials, goal, higher_is_better);
    if (r.steps) all.emplace_back(static_cast<double>(b), static_cast<double>(*r.steps));
  }
  // Two points determine the two parameters exactly: no residual, nothing to judge the model by.
  if (all.size() < 3) return std::nullopt;
  CriticalBatchInterval out;
  out.fit = fit_critical_batch(all);
  std::vector<double> b_crits, s_mins;
  uint64_t state = seed;
  auto next = [&state](uint64_t n) {
    state = derive_seed(state, 0x5eed);
    return n == 0 ? 0 : state % n;  // n is small: the modulo bias is negligible here
  };
  for (int r = 0; r < resamples; ++r) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& [b, trials] : trials_by_batch) {
      std::vector<ScalingTrial> sample;
      for (size_t i = 0; i < trials.size(); ++i) sample.push_back(trials[next(trials.size())]);
      const auto res = steps_to_result(sample, goal, higher_is_better);
      if (res.steps) pts.emplace_back(static_cast<double>(b), static_cast<double>(*res.steps));
    }
    if (pts.size() < 3) continue;
    const auto fit = fit_critical_batch(pts);
    b_crits.push_back(fit.b_crit);
    s_mins.push_back(fit.s_min);
  }
  out.resamples = static_cast<int>(b_crits.size());
  if (b_crits.empty()) return out;
  auto percentile = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<size_t>(pos);
    const double f = pos - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
  };
  out.b_crit_low = percentile(b_crits, 0.025);
  out.b_crit_high = percentile(b_crits, 0.975);
  out.s_min_low = percentile(s_mins, 0.025);
  out.s_min_high = percentile(s_mins, 0.975);
  return out;
}

}  // namespace pacer
