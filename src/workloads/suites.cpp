#include "workloads/suites.h"

#include "core/error.h"

namespace pacer {

const std::vector<WorkloadSuite>& workload_suites() {
  static const std::vector<WorkloadSuite> suites = {
      {"small", "the workloads that tune in minutes on a laptop CPU (budgets of 2-10 s)",
       {"fmnist_mlp", "fmnist_mlp_tanh", "fmnist_mlp_layernorm", "synthetic_regression"}},
      {"all", "every workload Pacer ships, including fmnist_cnn (240 s budget)",
       {"fmnist_mlp", "fmnist_mlp_tanh", "fmnist_mlp_layernorm", "fmnist_cnn", "synthetic_regression"}},
  };
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

}  // namespace pacer
