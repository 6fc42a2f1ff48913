#pragma once
// A newcomer's verdicts until separated (docs/scoring.md, "A newcomer's verdict until separated"):
// looks fixed in advance (the newcomer's study count at each look) and the share of the familywise
// 5% each look spends (a Bonferroni split over looks: valid under any dependence between them, as
// the union bound needs nothing else). At each look the still undecided comparisons are judged by
// Holm at that look's level; a comparison once decided stays decided, and only the undecided ones
// get more studies. The p-values come from the paired permutation test over trial slots
// (score/slot_bootstrap.h), exact under exchangeability; the paired bootstrap's, measured liberal
// on a board's observed costs (6.6% against 5%: bench/sequential_power), give only the intervals.
// Torch-free.
//
//   pacer::SequentialPlan plan;                       // looks at 3, 4, 5, 6 studies
//   std::vector<std::string> state(2, "undecided");
//   pacer::sequential_look(plan, 0, {p_vs_nadamw, p_vs_best}, {1.3, 0.9}, state);
#include <cstdint>
#include <string>
#include <vector>

namespace pacer {

struct SequentialPlan {
  std::vector<int> studies = {3, 4, 5, 6};                  // the newcomer's studies at each look
  std::vector<double> alpha = {0.005, 0.01, 0.015, 0.02};  // spent at each look; at most 0.05 in all
};

// InputError: sizes differ, no look, studies not increasing from 1, an alpha outside (0, 1), or
// a sum above 0.05 (+1e-12).
void validate_sequential_plan(const SequentialPlan& plan);

// The plan for a board of `first` studies, with at most `max_studies` (>= first): a look at every
// study count from `first` to `max_studies`, alpha rising linearly (look l gets a share
// proportional to l + 1), 0.05 in all.
SequentialPlan sequential_plan(int first, int max_studies);

// The fewest bootstrap resamples that let the first look reject anything: a bootstrap p-value is at
// least 2 / (R + 1), and Holm's first threshold there is alpha[0] / comparisons.
int minimum_resamples(const SequentialPlan& plan, int comparisons);

// Look `look`: the comparisons whose state is "undecided" are judged by Holm at plan.alpha[look]
// from their p-values; a rejected one becomes "faster" (speedup > 1) or "slower". The last look
// turns what stays undecided into "not separated". Returns how many are still undecided.
int sequential_look(const SequentialPlan& plan, size_t look, const std::vector<double>& p_values,
                    const std::vector<double>& speedups, std::vector<std::string>& state);

// The simulation behind the procedure's error rate and power (tests, bench/sequential_power):
// per workload, log trial cost = log(base_cost) + slot effect (shared by the paired newcomer and
// baseline, sd slot_sd) + own noise (sd noise_sd), capped at 2 (the pace's most); the newcomer's
// costs are the baseline's / speedup. Each simulated newcomer runs the plan against one baseline.
// With `empirical_costs` (per workload, a real cell's trial costs: bench/sequential_power reads
// them from a board's scores.json), a trial's cost is instead drawn from its workload's observed
// costs, the newcomer's and the baseline's independently (no pairing benefit assumed), the
// newcomer's divided by the speedup.
struct SequentialSimulation {
  int newcomers = 1000, workloads = 5, trials_per_study = 5, resamples = 1000;
  double speedup = 1.0, slot_sd = 0.5, noise_sd = 0.3, base_cost = 0.9;
  uint64_t seed = 1;
  std::vector<std::vector<double>> empirical_costs;
  bool permutation = true;  // p-values of the paired permutation test (as pacer board); false: the bootstrap's
};
struct SequentialSimulationResult {
  int newcomers = 0, declared_faster = 0, declared_slower = 0;
  double mean_studies = 0;  // the newcomer's studies when its comparison stopped
};
SequentialSimulationResult simulate_sequential(const SequentialPlan& plan, const SequentialSimulation& sim);

}  // namespace pacer
