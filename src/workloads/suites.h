#pragma once
// Named workload suites: the one place that says which workloads a suite runs.
//
//   for (const auto& name : pacer::workload_suite("small")) tune(name);
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

}  // namespace pacer
