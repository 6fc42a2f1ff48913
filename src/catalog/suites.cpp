#include "catalog/suites.h"

#include <random>

#include "core/error.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

std::vector<std::string> names_where(bool variants) {
  std::vector<std::string> names;
  for (const auto& spec : workload_specs())
    if (spec.is_variant() == variants) names.push_back(spec.name);
  return names;
}

}  // namespace

const std::vector<WorkloadSuite>& workload_suites() {
  static const std::vector<WorkloadSuite> suites = [] {
    std::vector<WorkloadSuite> s;
    s.push_back({"small", "every base workload once: the benchmark",
                 names_where(false)});
    // The leaderboard's suite (docs/leaderboard.md, "The board's suite"): one workload per model
    // family that a 2-core machine can afford 15 algorithms x 33 trials of; fmnist_cnn (173 s of
    // the 372 s of budgets) and fmnist_vit (the LM is the suite's transformer) stay in `small`.
    s.push_back({"board", "the leaderboard's suite: small without fmnist_cnn and fmnist_vit",
                 {"fmnist_mlp", "fmnist_resnet", "fmnist_recon", "fortunes_lm", "synthetic_regression"}});
    s.push_back({"variants", "every workload variant (held-out candidates)", names_where(true)});
    std::vector<std::string> all;
    for (const auto& spec : workload_specs()) all.push_back(spec.name);
    s.push_back({"all", "every workload Pacer ships", all});
    s.push_back({"quick", "the workloads that tune in seconds (tests, smoke checks)",
                 {"fmnist_mlp", "synthetic_regression"}});
    return s;
  }();
  return suites;
}

const std::vector<std::string>& workload_suite(const std::string& name) {
  std::string valid;
  for (const auto& suite : workload_suites()) {
    if (suite.name == name) return suite.workloads;
    valid += (valid.empty() ? "" : ", ") + suite.name;
  }
  throw InputError("unknown workload suite '" + name + "' (valid: " + valid + ")");
}

std::vector<std::string> draw_held_out_variants(const std::vector<std::string>& workloads, uint64_t seed) {
  // mt19937_64's output is fixed by the standard (distributions are not), so a draw is the same
  // on every platform for the same seed.
  std::mt19937_64 rng(seed);
  std::vector<std::string> drawn;
  for (const auto& name : workloads) {
    if (workload_spec(name).is_variant()) continue;
    const std::vector<std::string> variants = workload_variants(name);
    if (variants.empty()) continue;
    drawn.push_back(variants[static_cast<size_t>(rng() % variants.size())]);
  }
  return drawn;
}

}  // namespace pacer
