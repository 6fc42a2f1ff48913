#pragma once
// Rank statistics for comparing leaderboards: average ranks, Spearman's rho and Kendall's tau-b,
// with ties handled as scipy.stats.spearmanr and kendalltau handle them. Torch-free.
//
//   std::vector<double> seconds = {0.71, 0.60, 0.53}, steps = {0.67, 0.60, 0.52};
//   double rho = pacer::spearman_rho(seconds, steps);   // 1: the same order
//   double tau = pacer::kendall_tau_b(seconds, steps);  // 1
#include <vector>

namespace pacer {

// Ranks 1..n of `values` in ascending order; tied values share their average rank.
std::vector<double> average_ranks(const std::vector<double>& values);

// Pearson's correlation of the two samples' average ranks. NaN when either sample is constant
// or the samples have fewer than 2 values; Error when their sizes differ.
double spearman_rho(const std::vector<double>& a, const std::vector<double>& b);

// Kendall's tau-b: (concordant - discordant) / sqrt((n0 - ties in a) (n0 - ties in b)) over all
// pairs. NaN when either sample is constant; Error when the sizes differ.
double kendall_tau_b(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace pacer
