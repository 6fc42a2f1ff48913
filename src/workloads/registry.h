#pragma once
// The workloads Pacer ships, by name. The specs are plain data, so listing them needs no torch.
//
//   for (const auto& spec : pacer::workload_specs()) std::cout << spec.name << "\n";
//   std::unique_ptr<pacer::Workload> w = pacer::create_workload("fmnist_cnn");
#include <memory>
#include <string>
#include <vector>

#include "workloads/workload_spec.h"

namespace pacer {

class Workload;

std::vector<WorkloadSpec> workload_specs();
const WorkloadSpec& workload_spec(const std::string& name);  // InputError listing valid names
std::vector<std::string> workload_variants(const std::string& base);  // in catalog order
std::unique_ptr<Workload> create_workload(const std::string& name);

}  // namespace pacer
