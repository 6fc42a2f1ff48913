// The error rate and power of a newcomer's verdict until separated (score/sequential_verdict.h;
// docs/scoring.md, "A newcomer's verdict, until separated"), on simulated newcomers: how often one
// equal to the baseline is declared different (goal: at most 5%) and how often one 1.5x faster is
// declared faster (goal: at least 90% within the plan), with the studies each needed. Prints one
// JSON object.
//
//   build/bench/bench_sequential_power [newcomers=1000] [resamples=1000]
#include <cstdio>
#include <cstdlib>

#include "score/sequential_verdict.h"

int main(int argc, char** argv) {
  const int newcomers = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int resamples = argc > 2 ? std::atoi(argv[2]) : 1000;
  const pacer::SequentialPlan plan = pacer::sequential_plan(3, 6);
  std::printf("{\"plan_studies\": [3, 4, 5, 6], \"newcomers\": %d, \"resamples\": %d, \"results\": [", newcomers, resamples);
  const double speedups[] = {1.0, 1.25, 1.5, 2.0};
  for (size_t i = 0; i < 4; ++i) {
    pacer::SequentialSimulation sim;
    sim.newcomers = newcomers;
    sim.resamples = resamples;
    sim.speedup = speedups[i];
    sim.seed = 11 + i;
    const pacer::SequentialSimulationResult r = pacer::simulate_sequential(plan, sim);
    std::printf("%s\n  {\"speedup\": %.2f, \"declared_faster\": %d, \"declared_slower\": %d, \"share_faster\": %.4f, "
                "\"share_different\": %.4f, \"mean_studies\": %.3f}",
                i ? "," : "", sim.speedup, r.declared_faster, r.declared_slower,
                static_cast<double>(r.declared_faster) / r.newcomers,
                static_cast<double>(r.declared_faster + r.declared_slower) / r.newcomers, r.mean_studies);
    std::fflush(stdout);
  }
  std::printf("\n]}\n");
  return 0;
}
