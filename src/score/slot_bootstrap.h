#pragma once
// The paired stratified bootstrap behind the expected pace's verdicts (docs/scoring.md, "Verdicts
// per pair"). Within one run (one ScoreResult) a trial's slot is (study j, trial i); on a paired
// board every algorithm's slot shares its training seed and quasi-random point. A resample draws,
// per scored workload, as many slots as the workload has (the union over submissions), with
// replacement, and gives every submission the trials of the same slots (paired), or draws each
// submission's slots on its own (unpaired: what pairing is measured against). Each submission's
// expected pace is computed on every resample. A seeded std::mt19937_64: reproducible. Torch-free.
//
//   pacer::ScoreResult run = pacer::score_trials(trials, names, options);
//   pacer::SlotBootstrap b = pacer::slot_bootstrap(run, {10000, 1, /*paired=*/true});
//   double first = b.log_paces[0][2];  // resample 0, submission 2 (ScoreResult order), log expected pace
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "score/scoring.h"

namespace pacer {

struct SlotBootstrapOptions {
  int resamples = 10000;
  uint64_t seed = 1;
  bool paired = true;
};

struct SlotBootstrap {
  SlotBootstrapOptions options;
  std::vector<std::string> names;              // ScoreResult::submissions order
  std::vector<double> log_paces;               // the point estimates, log expected pace per name
  std::vector<std::vector<double>> resampled;  // [resample][name]: log expected pace
};

SlotBootstrap slot_bootstrap(const ScoreResult& run, const SlotBootstrapOptions& options);

// A paired permutation test of "a and b are exchangeable within each slot": each permutation swaps
// the two submissions' trials of a slot with probability 1/2, independently per slot (a slot that
// only one of them ran stays), and recomputes log expected pace(b) - log expected pace(a). The
// two-sided p-value (1 + #{|permuted| >= |observed|}) / (permutations + 1) is exact under that
// null at any sample size, which the bootstrap's is not (bench/sequential_power measures both).
// a, b: indices into ScoreResult::submissions.
double slot_permutation_p_value(const ScoreResult& run, size_t a, size_t b, int permutations, uint64_t seed);

// Per scored workload, the slots any submission has trials in. Exposed for the tests.
// A slot: (study, trial, occurrence); occurrence numbers the logs that share one study and trial
// index within a cell (pacer run folders outside AlgoPerf's layout are all study 0, trial 0).
using Slot = std::tuple<int, int, int>;
struct WorkloadSlots {
  std::string workload;
  std::vector<Slot> slots;  // sorted, the union over submissions
};
std::vector<WorkloadSlots> slot_lists(const ScoreResult& run);

}  // namespace pacer
