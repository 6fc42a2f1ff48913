#pragma once
// Named workload suites: the one place that says which workloads a suite runs.
//
//   for (const auto& name : pacer::workload_suite("small")) tune(name);
#include <cstdint>
#include <string>
#include <vector>

namespace pacer {

struct WorkloadSuite {
  std::string name;
  std::string description;
  std::vector<std::string> workloads;
};

const std::vector<WorkloadSuite>& workload_suites();
const std::vector<std::string>& workload_suite(const std::string& name);  // InputError listing suites

// AlgoPerf v0.5's held-out workloads: for each base workload in `workloads` that has variants,
// one variant drawn with `seed` (the same seed draws the same variants everywhere).
std::vector<std::string> draw_held_out_variants(const std::vector<std::string>& workloads, uint64_t seed);

}  // namespace pacer
