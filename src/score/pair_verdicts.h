#pragma once
// Verdicts per pair by the expected pace (docs/scoring.md, "Verdicts per pair"): for every pair of
// submissions of one run, and for every submission against the reference, the speedup with its 95%
// interval from the paired slot bootstrap (score/slot_bootstrap.h), a two-sided bootstrap p-value,
// Holm's correction over the family, the verdict ("faster", "slower", "not separated"), the
// resolution (the smallest speedup an interval of that width separates from 1: sqrt(high / low)),
// rliable's probability of improvement, and what pairing did (the unpaired interval beside it).
// Torch-free.
//
//   pacer::VerdictTables v = pacer::pair_verdicts(run, pacer::VerdictOptions{});  // run: a ScoreResult
//   for (const auto& p : v.against_reference) std::printf("%s %s\n", p.a.c_str(), p.verdict.c_str());
#include <cstdint>
#include <string>
#include <vector>

#include "score/scoring.h"

namespace pacer {

struct VerdictOptions {
  int resamples = 10000;
  uint64_t seed = 1;
  double level = 0.95;     // of the intervals
  double familywise = 0.05;  // Holm's level over each family
  std::string reference;   // the baseline ("nadamw"); empty: no baseline family
  bool unpaired_too = true;  // also the unpaired bootstrap, to measure what pairing did
  bool all_pairs = true;     // the family of every pair (false: only the comparisons against the reference)
  // Where the verdicts' p-values come from: the bootstrap's two-sided p-value (the board's
  // pre-registered analysis), or the paired permutation test of score/slot_bootstrap.h (exact
  // under exchangeability: a newcomer's sequential verdicts, whose error rate was measured).
  enum class PValues { bootstrap, permutation } p_values = PValues::bootstrap;
};

// A against B: how much faster A is (expected pace(B) / expected pace(A)).
struct PairVerdict {
  std::string a, b;
  double speedup = 0, low = 0, high = 0;  // point estimate and interval
  double p_value = 1;                     // two-sided, bootstrap
  double resolution = 0;                  // sqrt(high / low)
  double probability_of_improvement = 0;  // P(a trial of A costs less than one of B), mean over workloads
  double unpaired_low = 0, unpaired_high = 0;  // the same interval without pairing (0: not computed)
  double paired_correlation = 0;          // Spearman over shared slots of their trial costs, median over workloads (NaN: none)
  std::string verdict = "not separated";  // of A against B, after Holm
};

struct VerdictFamily {
  int faster = 0, slower = 0, not_separated = 0;
  double median_resolution = 0;
  double median_width_ratio = 0;  // paired / unpaired log-interval width, median over the family (0: not computed)
};

struct VerdictTables {
  VerdictOptions options;
  std::vector<PairVerdict> against_reference;  // every other submission against the reference
  std::vector<PairVerdict> pairs;              // every pair once, a before b in leaderboard order
  VerdictFamily reference_family, pair_family;
  double median_paired_correlation = 0;        // over every pair (NaN: no shared slots)
};

// The two-sided bootstrap p-value of "no difference" from resampled log-speedups (> 0: A faster).
double bootstrap_p_value(const std::vector<double>& log_speedups);

// Holm's step-down at `level`: which of the p-values are rejected.
std::vector<bool> holm_rejections(const std::vector<double>& p_values, double level);

VerdictTables pair_verdicts(const ScoreResult& run, const VerdictOptions& options);

// For the console and board.md: the reference family's table and both families' counts.
std::string verdicts_text(const VerdictTables& v);
// Every verdict of both families, one row each.
std::string verdicts_csv(const VerdictTables& v);

}  // namespace pacer
