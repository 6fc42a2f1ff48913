#include "analyze/best_of_k.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace pacer {

BestOfK best_of_k(const std::vector<std::optional<double>>& objectives, bool higher_is_better, int resamples,
                  uint64_t seed) {
  BestOfK out;
  out.n = static_cast<int>(objectives.size());
  out.resamples = std::max(1, resamples);
  out.seed = seed;
  // Work with scores, higher is better; infeasible -> the worst feasible score.
  std::vector<double> scores;
  double worst = INFINITY;
  for (const auto& o : objectives) {
    if (o) worst = std::min(worst, higher_is_better ? *o : -*o);
  }
  for (const auto& o : objectives) {
    out.infeasible += !o;
    scores.push_back(o ? (higher_is_better ? *o : -*o) : worst);
  }
  if (!std::isfinite(worst)) {
    out.verdict = out.n == 0 ? "too few trials" : "no feasible trials";
    return out;
  }
  const int n = out.n, r_count = out.resamples;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::vector<std::vector<double>> best(n, std::vector<double>(r_count));  // [k-1][resample]
  for (int r = 0; r < r_count; ++r) {
    double running = -INFINITY;
    for (int k = 0; k < n; ++k) {
      running = std::max(running, scores[pick(rng)]);
      best[k][r] = running;
    }
  }
  auto to_objective = [&](double s) { return higher_is_better ? s : -s; };
  std::vector<double> expected(n);
  for (int k = 0; k < n; ++k) {
    auto& v = best[k];
    double sum = 0;
    for (double x : v) sum += x;
    expected[k] = sum / r_count;
    std::sort(v.begin(), v.end());
    const double lo = v[static_cast<size_t>(std::floor(0.1 * (r_count - 1)))];
    const double hi = v[static_cast<size_t>(std::ceil(0.9 * (r_count - 1)))];
    BestOfKPoint p;
    p.k = k + 1;
    p.expected = to_objective(expected[k]);
    p.p10 = std::min(to_objective(lo), to_objective(hi));
    p.p90 = std::max(to_objective(lo), to_objective(hi));
    out.points.push_back(p);
  }
  const int half = (n + 1) / 2;  // ceil(n/2)
  out.total_gain = expected[n - 1] - expected[0];
  out.late_gain = expected[n - 1] - expected[half - 1];
  if (n < 6) out.verdict = "too few trials";
  else if (out.total_gain > 0 && out.late_gain > 0.1 * out.total_gain) out.verdict = "more trials would likely help";
  else out.verdict = "saturated";
  return out;
}

}  // namespace pacer
