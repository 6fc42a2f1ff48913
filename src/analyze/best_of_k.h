#pragma once
// "Have we sampled enough?" (tuning playbook): the expected best objective of k trials drawn with
// replacement from the finished trials, k = 1..n, by bootstrap (a seeded std::mt19937_64, so the
// curve is reproducible), with the 10th-90th percentile band. Each resample draws a sequence of n
// trials; its running best gives the best of the first k for every k at once. Infeasible trials
// count as the worst feasible objective: they are drawn (they cost a trial) but never beat a
// feasible one.
//
// Verdict (gains measured in the better direction of the objective):
//   n < 6                                          -> "too few trials"
//   no feasible trial                              -> "no feasible trials"
//   total = E[k=n] - E[k=1] > 0 and
//   late  = E[k=n] - E[k=ceil(n/2)] > 10% of total -> "more trials would likely help"
//   otherwise                                      -> "saturated"
//
//   pacer::BestOfK curve = pacer::best_of_k({0.8, std::nullopt, 0.85}, /*higher_is_better=*/true);
//   std::printf("%s\n", curve.verdict.c_str());
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pacer {

struct BestOfKPoint {
  int k = 1;
  double expected = 0.0;  // mean over resamples of the best of k
  double p10 = 0.0, p90 = 0.0;  // percentiles of the best of k (objective units, p10 <= p90)
};

struct BestOfK {
  int n = 0, infeasible = 0, resamples = 0;
  uint64_t seed = 0;
  std::vector<BestOfKPoint> points;  // k = 1..n; empty without a feasible trial
  double total_gain = 0.0, late_gain = 0.0;  // >= 0 means better, in either direction
  std::string verdict;
};

// objectives: one per finished trial, nullopt for an infeasible one.
BestOfK best_of_k(const std::vector<std::optional<double>>& objectives, bool higher_is_better, int resamples = 1000,
                  uint64_t seed = 0);

}  // namespace pacer
