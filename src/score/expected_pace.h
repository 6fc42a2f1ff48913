#pragma once
// Pacer's all-trials score, the expected pace (docs/scoring.md, "The expected pace"; its definition
// and the analysis that judges it were fixed in a commit before the third board ran). A cell's
// cost is the expected least pace cost of a k-trial study drawn without replacement from every
// trial of the cell: the U-statistic over the sorted costs c(1) <= ... <= c(n),
//   E_k = sum_{i=1}^{n-k+1} C(n-i, k-1) / C(n, k) * c(i),
// so every trial counts, weighted as a study's minimum weights it. k = the trials per study
// (1 under self-tuning: the mean). The expected pace of a submission is the geometric mean of its
// cell costs over the scored workloads, as the pace's (score/pace.h).
//
//   double cell = pacer::expected_best_of_k({1.2, 0.4, 0.9, 2.0}, 2);  // 0.4*3/6 + 0.9*2/6 + 1.2*1/6
#include <vector>

namespace pacer {

// The weights C(n-i, k-1) / C(n, k) of the sorted costs, i = 1..n (zero past n-k+1); they sum to
// 1. k is clamped to [1, n] (n < k: the least cost gets weight 1). Empty for n = 0.
std::vector<double> best_of_k_weights(int n, int k);

// E_k of the costs (any order); NaN for no costs. Infinite costs are allowed (a weight of zero
// never multiplies one: the weights of the k-1 largest are zero).
double expected_best_of_k(std::vector<double> costs, int k);

}  // namespace pacer
