#pragma once
// The workloads by name, as plain data: each shipped workload's targets, budget, step hint, eval
// period, batch size, declared options and metrics, and any workload registered at run time. The
// CLI lists, scores and plans from here without LibTorch; the training layer makes a workload
// from its spec (workloads/registry.h: register_workload, create_workload).
//
//   for (const auto& spec : pacer::workload_specs()) std::cout << spec.name << "\n";
//   const pacer::WorkloadSpec& mlp = pacer::workload_spec("fmnist_mlp");   // InputError if unknown
#include <string>
#include <vector>

#include "catalog/workload_spec.h"

namespace pacer {

// Error when the name is empty or taken. A spec is never moved once registered, so the
// references workload_spec returns stay valid.
void register_workload_spec(WorkloadSpec spec);

std::vector<WorkloadSpec> workload_specs();  // in registration order
const WorkloadSpec& workload_spec(const std::string& name);  // InputError listing valid names
std::vector<std::string> workload_variants(const std::string& base);  // in catalog order

}  // namespace pacer
