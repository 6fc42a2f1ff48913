// Overhead of an algorithm loaded as a plugin against the same source compiled in: the example
// plugin (examples/algorithm_plugin, Signum) trains fmnist_mlp for STEPS steps both ways, in one
// process, alternating over ROUNDS rounds; per-step time is the AlgoPerf submission time / steps.
// Prints a table and writes JSON (medians, min, max, ratio plugin / built-in).
//
//   bench_plugin_overhead PATH/libsignum.so [OUT.json] [STEPS=300] [ROUNDS=5] [THREADS=1]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "runtime/torch_runtime.h"
#include "train/trial_runner.h"
#include "workloads/registry.h"

#include "../examples/algorithm_plugin/signum.cpp"

namespace {

double per_step(pacer::TrainingAlgorithm& algorithm, int64_t steps) {
  auto workload = pacer::create_workload("fmnist_mlp");
  pacer::TrialOptions options;
  options.seed = 1;
  options.spec.max_steps = steps;
  options.spec.eval_every_steps = steps;  // evals at step 1 and the last: off the clock anyway
  options.spec.time_budget = 1e9;
  options.spec.stop_at_targets = false;
  options.spec.eval_splits = {pacer::EvalSplit::validation};
  pacer::Hyperparameters hp;
  hp.set("learning_rate", 1e-3);
  const pacer::TrialResult r = pacer::run_trial(*workload, algorithm, hp, options);
  return r.submission_time / static_cast<double>(r.steps);
}

struct Stats {
  double min, median, max;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_plugin_overhead PATH/libsignum.so [OUT.json] [STEPS] [ROUNDS] [THREADS]\n");
    return 2;
  }
  const std::string library = argv[1], out = argc > 2 ? argv[2] : "";
  const int64_t steps = argc > 3 ? std::stoll(argv[3]) : 300;
  const int rounds = argc > 4 ? std::stoi(argv[4]) : 5;
  const int threads = argc > 5 ? std::stoi(argv[5]) : 1;
  try {
    pacer::set_num_threads(threads);
    const std::string name = pacer::resolve_algorithm(library);
    std::vector<double> builtin_times, plugin_times;
    for (int round = 0; round < rounds; ++round) {
      // Alternate which goes first, so neither always runs on a cold cache.
      for (int k = 0; k < 2; ++k) {
        const bool plugin_now = (round + k) % 2 == 0;
        if (plugin_now) {
          auto algorithm = pacer::create_algorithm(name);
          plugin_times.push_back(per_step(*algorithm, steps));
        } else {
          Signum algorithm;
          builtin_times.push_back(per_step(algorithm, steps));
        }
      }
    }
    const Stats b = stats(builtin_times), p = stats(plugin_times);
    std::printf("fmnist_mlp x signum, %lld steps, %d rounds, %d thread(s): ms per step (min / median / max)\n",
                static_cast<long long>(steps), rounds, threads);
    std::printf("  built in  %.3f / %.3f / %.3f\n", b.min * 1e3, b.median * 1e3, b.max * 1e3);
    std::printf("  plugin    %.3f / %.3f / %.3f\n", p.min * 1e3, p.median * 1e3, p.max * 1e3);
    std::printf("  ratio plugin / built in (medians): %.3f\n", p.median / b.median);
    if (!out.empty()) {
      nlohmann::ordered_json j = {
          {"workload", "fmnist_mlp"}, {"algorithm", "signum"}, {"steps", steps}, {"rounds", rounds},
          {"threads", threads}, {"torch", pacer::torch_version()},
          {"builtin_ms_per_step", {{"min", b.min * 1e3}, {"median", b.median * 1e3}, {"max", b.max * 1e3}}},
          {"plugin_ms_per_step", {{"min", p.min * 1e3}, {"median", p.median * 1e3}, {"max", p.max * 1e3}}},
          {"ratio_plugin_over_builtin", p.median / b.median}};
      std::ofstream(out) << j.dump(2) << "\n";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_plugin_overhead: %s\n", e.what());
    return 1;
  }
  return 0;
}
