#include "score/sequential_verdict.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "core/atomic_file.h"
#include "core/error.h"
#include "score/pair_verdicts.h"
#include "score/expected_pace.h"
#include "score/pace.h"
#include "score/slot_bootstrap.h"

namespace pacer {

void validate_sequential_plan(const SequentialPlan& plan) {
  if (plan.studies.empty() || plan.studies.size() != plan.alpha.size())
    throw InputError("sequential plan: give as many looks as alphas (at least one)");
  double sum = 0;
  for (size_t l = 0; l < plan.studies.size(); ++l) {
    if (plan.studies[l] < 1 || (l > 0 && plan.studies[l] <= plan.studies[l - 1]))
      throw InputError("sequential plan: the studies at each look must rise from 1 or more");
    if (!(plan.alpha[l] > 0 && plan.alpha[l] < 1)) throw InputError("sequential plan: each look's alpha must be in (0, 1)");
    sum += plan.alpha[l];
  }
  if (sum > 0.05 + 1e-12) throw InputError("sequential plan: the looks spend more than 5% in all");
}

SequentialPlan sequential_plan(int first, int max_studies) {
  if (first < 1) throw InputError("sequential plan: at least one study at the first look");
  if (max_studies < first)
    throw InputError("--max-studies " + std::to_string(max_studies) + " is below the board's " + std::to_string(first) +
                     " studies");
  SequentialPlan plan;
  plan.studies.clear();
  plan.alpha.clear();
  const int looks = max_studies - first + 1;
  const double shares = looks * (looks + 1) / 2.0;
  for (int l = 0; l < looks; ++l) {
    plan.studies.push_back(first + l);
    plan.alpha.push_back(0.05 * (l + 1) / shares);
  }
  return plan;
}

int minimum_resamples(const SequentialPlan& plan, int comparisons) {
  validate_sequential_plan(plan);
  const double threshold = plan.alpha.front() / std::max(comparisons, 1);
  return static_cast<int>(std::ceil(2.0 / threshold - 1.0 - 1e-9));
}

int sequential_look(const SequentialPlan& plan, size_t look, const std::vector<double>& p_values,
                    const std::vector<double>& speedups, std::vector<std::string>& state) {
  if (look >= plan.alpha.size()) throw Error("sequential look past the plan's last");
  std::vector<size_t> open;
  std::vector<double> p;
  for (size_t c = 0; c < state.size(); ++c)
    if (state[c] == "undecided") open.push_back(c), p.push_back(p_values[c]);
  const std::vector<bool> rejected = holm_rejections(p, plan.alpha[look]);
  int undecided = 0;
  for (size_t k = 0; k < open.size(); ++k) {
    std::string& s = state[open[k]];
    if (rejected[k]) s = speedups[open[k]] > 1 ? "faster" : "slower";
    else if (look + 1 == plan.alpha.size()) s = "not separated";
    else ++undecided;
  }
  return undecided;
}

namespace {

TrialLog simulated_trial(const std::string& who, const std::string& workload, int study, int index, double cost) {
  TrialLog t;
  t.submission = who;
  t.workload = workload;
  t.study = study;
  t.trial = index;
  t.rows = 1;
  t.source = who + "/" + workload;
  // A cost below 1 is a target reached at that fraction of the budget; above it, a miss by
  // (cost - 1) x 4 seed sd (the pace's width).
  t.columns["score"] = {std::min(cost, 1.0) * 100};
  t.columns["validation/accuracy"] = {cost <= 1 ? 0.8 : 0.8 - (cost - 1) * 0.04};
  t.columns["global_step"] = {100};
  return t;
}

}  // namespace

SequentialSimulationResult simulate_sequential(const SequentialPlan& plan, const SequentialSimulation& sim) {
  if (sim.resamples < minimum_resamples(plan, 1))
    throw InputError("simulation: " + std::to_string(sim.resamples) + " resamples cannot reach the first look's level (" +
                     std::to_string(minimum_resamples(plan, 1)) + " needed)");
  SequentialSimulationResult result;
  std::mt19937_64 rng(sim.seed);
  std::normal_distribution<double> slot(0.0, sim.slot_sd), noise(0.0, sim.noise_sd);
  const bool empirical = !sim.empirical_costs.empty();
  for (const auto& observed : sim.empirical_costs)
    if (observed.empty()) throw InputError("simulation: a workload without observed costs");
  const int workloads = empirical ? static_cast<int>(sim.empirical_costs.size()) : sim.workloads;
  ScoreOptions options;
  options.reference = "baseline";
  std::string targets = "{";
  for (int w = 0; w < workloads; ++w) {
    targets += (w ? ", " : "") + std::string("\"sim") + std::to_string(w) +
               "\": {\"metric\": \"accuracy\", \"validation_target\": 0.8, \"budget\": 100, \"seed_sd\": 0.01}";
  }
  targets += "}";
  // The simulated workloads' targets, as a --targets file would give them.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("pacer_sequential_" + std::to_string(::getpid()) + "_" +
                                                std::to_string(sim.seed) + ".json");
  write_file_atomic(file.string(), targets);
  options.targets_file = file.string();
  for (int n = 0; n < sim.newcomers; ++n) {
    std::vector<TrialLog> logs;
    auto add_study = [&](int study) {
      for (int w = 0; w < workloads; ++w)
        for (int i = 1; i <= sim.trials_per_study; ++i) {
          double base, mine;
          if (empirical) {
            const auto& observed = sim.empirical_costs[static_cast<size_t>(w)];
            std::uniform_int_distribution<size_t> pick(0, observed.size() - 1);
            base = observed[pick(rng)];
            mine = std::min(2.0, observed[pick(rng)] / sim.speedup);
          } else {
            const double shared = std::log(sim.base_cost) + slot(rng);
            base = std::min(2.0, std::exp(shared + noise(rng)));
            mine = std::min(2.0, std::exp(shared + noise(rng)) / sim.speedup);
          }
          const std::string workload = "sim" + std::to_string(w);
          logs.push_back(simulated_trial("baseline", workload, study, i, base));
          logs.push_back(simulated_trial("newcomer", workload, study, i, mine));
        }
    };
    int studies = 0;
    std::vector<std::string> state = {"undecided"};
    for (size_t look = 0; look < plan.studies.size() && state[0] == "undecided"; ++look) {
      while (studies < plan.studies[look]) add_study(++studies);
      const ScoreResult run = score_trials(logs, {"newcomer", "baseline"}, options);
      VerdictOptions v;
      v.resamples = sim.resamples;
      v.seed = sim.seed * 1000003 + static_cast<uint64_t>(n) * 17 + look;
      v.reference = "baseline";
      v.unpaired_too = false;
      v.p_values = sim.permutation ? VerdictOptions::PValues::permutation : VerdictOptions::PValues::bootstrap;
      v.all_pairs = false;
      const VerdictTables t = pair_verdicts(run, v);
      sequential_look(plan, look, {t.against_reference[0].p_value}, {t.against_reference[0].speedup}, state);
    }
    ++result.newcomers;
    result.declared_faster += state[0] == "faster";
    result.declared_slower += state[0] == "slower";
    result.mean_studies += studies;
  }
  std::filesystem::remove(file);
  if (result.newcomers > 0) result.mean_studies /= result.newcomers;
  return result;
}

}  // namespace pacer
