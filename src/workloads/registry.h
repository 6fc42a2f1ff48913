#pragma once
// Making workloads: each workload of the catalog (catalog/workload_specs.h, plain data, listed
// and scored without torch) has its factory here under its name; another workload registers its
// spec and its factory together, and is then listed and created like a shipped one.
//
//   std::unique_ptr<pacer::Workload> w = pacer::create_workload("fmnist_cnn");
//   auto wide = pacer::create_workload("fmnist_mlp", {{"width", "512"}});
//   pacer::register_workload(my_spec, [](const pacer::WorkloadSpec& s) { return std::make_unique<MyWorkload>(s); });
#include <functional>
#include <memory>
#include <string>

#include "catalog/workload_options.h"
#include "catalog/workload_spec.h"
#include "catalog/workload_specs.h"

namespace pacer {

class Workload;

using WorkloadFactory = std::function<std::unique_ptr<Workload>(const WorkloadSpec&)>;

// Error when the name is empty or taken, or the factory is empty.
void register_workload(WorkloadSpec spec, WorkloadFactory factory);

// With options: the workload's declared options changed (InputError for undeclared names or
// invalid values); registered workloads without declarations take none.
std::unique_ptr<Workload> create_workload(const std::string& name, const WorkloadOptions& options = {});

}  // namespace pacer
