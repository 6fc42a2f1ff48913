#include "score/slot_bootstrap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "score/expected_pace.h"
#include "score/pace.h"

namespace pacer {
namespace {

std::vector<std::pair<Slot, double>> slotted(const WorkloadScore& ws) {
  std::map<std::pair<int, int>, int> seen;
  std::vector<std::pair<Slot, double>> out;
  for (const auto& t : ws.trial_costs) out.push_back({Slot{t.study, t.trial, seen[{t.study, t.trial}]++}, t.cost});
  return out;
}

// One submission's cells as slot-indexed costs: cells[w][s] = the cost at slot s of workload w
// (NaN: the submission has no trial there), with each cell's k.
struct SubmissionCells {
  std::vector<std::vector<double>> costs;
  std::vector<int> k;
  std::vector<bool> present;  // the submission has trials on the workload
};

SubmissionCells cells_of(const SubmissionScore& sub, const ScoreResult& run, const std::vector<WorkloadSlots>& lists) {
  SubmissionCells cells;
  for (const auto& list : lists) {
    std::vector<double> costs(list.slots.size(), std::nan(""));
    int k = 0;
    bool present = false;
    for (size_t c = 0; c < run.workloads.size(); ++c) {
      if (run.workloads[c].workload != list.workload) continue;
      const WorkloadScore& ws = sub.workloads[c];
      k = ws.best_of_k;
      present = ws.expected_pace_cost.has_value();
      for (const auto& [slot, cost] : slotted(ws)) {
        const auto at = std::lower_bound(list.slots.begin(), list.slots.end(), slot);
        costs[static_cast<size_t>(at - list.slots.begin())] = cost;
      }
    }
    cells.costs.push_back(std::move(costs));
    cells.k.push_back(k);
    cells.present.push_back(present);
  }
  return cells;
}

double log_pace_of(const SubmissionCells& cells, const std::vector<std::vector<size_t>>& draw, std::vector<double>& scratch) {
  double sum = 0.0;
  for (size_t w = 0; w < cells.costs.size(); ++w) {
    double cost = 1.0 + kPaceMaxGap;  // no trials: the pace's most
    if (cells.present[w]) {
      scratch.clear();
      for (size_t s : draw[w])
        if (!std::isnan(cells.costs[w][s])) scratch.push_back(cells.costs[w][s]);
      if (!scratch.empty()) cost = expected_best_of_k(scratch, cells.k[w]);
    }
    sum += std::log(cost);
  }
  return cells.costs.empty() ? std::log(1.0 + kPaceMaxGap) : sum / static_cast<double>(cells.costs.size());
}

}  // namespace

double slot_permutation_p_value(const ScoreResult& run, size_t a, size_t b, int permutations, uint64_t seed) {
  const std::vector<WorkloadSlots> lists = slot_lists(run);
  SubmissionCells ca = cells_of(run.submissions[a], run, lists), cb = cells_of(run.submissions[b], run, lists);
  std::vector<std::vector<size_t>> identity(lists.size());
  for (size_t w = 0; w < lists.size(); ++w)
    for (size_t s = 0; s < lists[w].slots.size(); ++s) identity[w].push_back(s);
  std::vector<double> scratch;
  const double observed = std::abs(log_pace_of(cb, identity, scratch) - log_pace_of(ca, identity, scratch));
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution swap(0.5);
  SubmissionCells pa = ca, pb = cb;
  int at_least = 0;
  for (int r = 0; r < permutations; ++r) {
    for (size_t w = 0; w < lists.size(); ++w) {
      for (size_t s = 0; s < lists[w].slots.size(); ++s) {
        const double x = ca.costs[w][s], y = cb.costs[w][s];
        const bool both = !std::isnan(x) && !std::isnan(y);
        const bool flip = both && swap(rng);
        pa.costs[w][s] = flip ? y : x;
        pb.costs[w][s] = flip ? x : y;
      }
    }
    const double permuted = std::abs(log_pace_of(pb, identity, scratch) - log_pace_of(pa, identity, scratch));
    at_least += permuted >= observed - 1e-12 * std::max(1.0, observed) ? 1 : 0;
  }
  return (1.0 + at_least) / (permutations + 1.0);
}

std::vector<WorkloadSlots> slot_lists(const ScoreResult& run) {
  std::vector<WorkloadSlots> out;
  for (const auto& base : run.base_workloads) {
    std::set<Slot> slots;
    for (size_t c = 0; c < run.workloads.size(); ++c) {
      if (run.workloads[c].workload != base) continue;
      for (const auto& sub : run.submissions)
        for (const auto& [slot, cost] : slotted(sub.workloads[c])) slots.insert(slot);
    }
    out.push_back({base, std::vector<Slot>(slots.begin(), slots.end())});
  }
  return out;
}

SlotBootstrap slot_bootstrap(const ScoreResult& run, const SlotBootstrapOptions& options) {
  SlotBootstrap b;
  b.options = options;
  const std::vector<WorkloadSlots> lists = slot_lists(run);
  std::vector<SubmissionCells> cells;
  std::vector<double> scratch;
  std::vector<std::vector<size_t>> identity(lists.size());
  for (size_t w = 0; w < lists.size(); ++w)
    for (size_t s = 0; s < lists[w].slots.size(); ++s) identity[w].push_back(s);
  for (const auto& sub : run.submissions) {
    b.names.push_back(sub.name);
    cells.push_back(cells_of(sub, run, lists));
    b.log_paces.push_back(log_pace_of(cells.back(), identity, scratch));
  }
  std::mt19937_64 rng(options.seed);
  auto draw_slots = [&](std::vector<std::vector<size_t>>& draw) {
    for (size_t w = 0; w < lists.size(); ++w) {
      const size_t n = lists[w].slots.size();
      draw[w].resize(n);
      if (n == 0) continue;
      std::uniform_int_distribution<size_t> pick(0, n - 1);
      for (auto& s : draw[w]) s = pick(rng);
    }
  };
  std::vector<std::vector<size_t>> draw(lists.size());
  b.resampled.assign(static_cast<size_t>(std::max(options.resamples, 0)), std::vector<double>(cells.size()));
  for (auto& row : b.resampled) {
    if (options.paired) draw_slots(draw);
    for (size_t s = 0; s < cells.size(); ++s) {
      if (!options.paired) draw_slots(draw);
      row[s] = log_pace_of(cells[s], draw, scratch);
    }
  }
  return b;
}

}  // namespace pacer
