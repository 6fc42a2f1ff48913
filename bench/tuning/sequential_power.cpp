// The error rate and power of a newcomer's verdict until separated (score/sequential_verdict.h;
// docs/scoring.md, "A newcomer's verdict, until separated"), on simulated newcomers: how often one
// equal to the baseline is declared different (goal: at most 5%) and how often one 1.5x faster is
// declared faster (goal: at least 90%), with the studies each needed, for the plan with looks at
// 3-6 studies, the plan a one-hour cap allows (3-5) and one look at 3 studies (a board's verdict:
// its test at 5%), by the permutation test the procedure uses and by the bootstrap's p-value. Two cost models: the parametric one
// (paired slots), and, given a board's scores.json, the baseline's own observed trial costs per
// workload (drawn independently for the two: no pairing benefit). Prints one JSON object.
//
//   build/bench/bench_sequential_power [newcomers=1000] [resamples=1000] [scores.json baseline]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "score/sequential_verdict.h"

namespace {

std::vector<std::vector<double>> observed_costs(const std::string& scores, const std::string& baseline) {
  std::ifstream in(scores);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::vector<std::vector<double>> costs;
  for (const auto& s : j.at("submissions")) {
    if (s.at("name") != baseline) continue;
    for (const auto& w : j.at("base_workloads")) {
      std::vector<double> cell;
      for (const auto& t : s.at("workloads").at(w.get<std::string>()).at("trial_pace_costs"))
        cell.push_back(t.at("cost").is_null() ? 2.0 : t.at("cost").get<double>());
      costs.push_back(cell);
    }
  }
  if (costs.empty()) throw std::runtime_error("no submission '" + baseline + "' in " + scores);
  return costs;
}

}  // namespace

int main(int argc, char** argv) {
  const int newcomers = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int resamples = argc > 2 ? std::atoi(argv[2]) : 1000;
  std::vector<std::vector<double>> empirical;
  if (argc > 4) empirical = observed_costs(argv[3], argv[4]);
  std::printf("{\"newcomers\": %d, \"resamples\": %d, \"results\": [", newcomers, resamples);
  bool first = true;
  for (const bool use_observed : {false, true}) {
    if (use_observed && empirical.empty()) continue;
    for (const char* test : {"permutation", "bootstrap"}) {
    for (const int max_studies : {6, 5, 3}) {
      const pacer::SequentialPlan plan = pacer::sequential_plan(3, max_studies);
      for (const double speedup : {1.0, 1.25, 1.5}) {
        if (std::string(test) == "bootstrap" && speedup != 1.0) continue;  // its error rate only
        pacer::SequentialSimulation sim;
        sim.permutation = std::string(test) == "permutation";
        sim.newcomers = newcomers;
        sim.resamples = resamples;
        sim.speedup = speedup;
        sim.seed = 11 + static_cast<uint64_t>(speedup * 100) + max_studies;
        if (use_observed) sim.empirical_costs = empirical;
        const pacer::SequentialSimulationResult r = pacer::simulate_sequential(plan, sim);
        std::printf("%s\n  {\"model\": \"%s\", \"test\": \"%s\", \"max_studies\": %d, \"speedup\": %.2f, \"declared_faster\": %d, "
                    "\"declared_slower\": %d, \"share_faster\": %.4f, \"share_different\": %.4f, \"mean_studies\": %.3f}",
                    first ? "" : ",", use_observed ? "observed" : "parametric", test, max_studies, speedup, r.declared_faster,
                    r.declared_slower, static_cast<double>(r.declared_faster) / r.newcomers,
                    static_cast<double>(r.declared_faster + r.declared_slower) / r.newcomers, r.mean_studies);
        std::fflush(stdout);
        first = false;
      }
    }
    }
  }
  std::printf("\n]}\n");
  return 0;
}
