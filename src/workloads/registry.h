#pragma once
// Workloads by name: each is registered once with its spec (targets, budget, step hint: plain
// data, so listing them needs no torch) and its factory. The shipped ones register themselves on
// first use; another workload registers the same way.
//
//   for (const auto& spec : pacer::workload_specs()) std::cout << spec.name << "\n";
//   std::unique_ptr<pacer::Workload> w = pacer::create_workload("fmnist_cnn");
//   auto wide = pacer::create_workload("fmnist_mlp", {{"width", "512"}});
//   pacer::register_workload(my_spec, [](const pacer::WorkloadSpec& s) { return std::make_unique<MyWorkload>(s); });
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workloads/workload_options.h"
#include "workloads/workload_spec.h"

namespace pacer {

class Workload;

using WorkloadFactory = std::function<std::unique_ptr<Workload>(const WorkloadSpec&)>;

// Error when the name is empty or taken, or the factory is empty.
void register_workload(WorkloadSpec spec, WorkloadFactory factory);

std::vector<WorkloadSpec> workload_specs();  // in registration order
const WorkloadSpec& workload_spec(const std::string& name);  // InputError listing valid names
std::vector<std::string> workload_variants(const std::string& base);  // in catalog order
// With options: the workload's declared options changed (InputError for undeclared names or
// invalid values); registered workloads without declarations take none.
std::unique_ptr<Workload> create_workload(const std::string& name, const WorkloadOptions& options = {});

}  // namespace pacer
