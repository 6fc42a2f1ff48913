#include "distributed/data_parallel_plan.h"

#include "core/error.h"

namespace pacer {

std::string DataParallelPlan::describe() const {
  return std::to_string(processes()) + " process(es)" + (communicator ? " over " + communicator->backend() : std::string()) +
         " x " + std::to_string(virtual_workers) + " virtual worker(s), combine " + combiner->name() +
         (combine_deltas ? " (deltas)" : "");
}

std::shared_ptr<DataParallelPlan> make_data_parallel_plan(const DataParallelSpec& spec,
                                                          std::shared_ptr<Communicator> communicator) {
  const bool processes = communicator && communicator->size() > 1;
  if (!processes && !spec.requested()) return nullptr;
  spec.validate();
  if (processes && spec.virtual_workers > 1) {
    throw InputError("--virtual-workers runs inside one process; with " + std::to_string(communicator->size()) +
                     " processes, use one or the other");
  }
  auto plan = std::make_shared<DataParallelPlan>();
  plan->combiner = make_gradient_combiner(spec.combine.empty() ? "mean" : spec.combine);
  plan->virtual_workers = spec.virtual_workers;
  plan->combine_deltas = spec.combine_deltas;
  if (processes) plan->communicator = std::move(communicator);
  return plan;
}

}  // namespace pacer
