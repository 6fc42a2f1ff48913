#pragma once
// What a data-parallel training step needs to know: the processes it runs among (a c10d
// communicator, or none), how many virtual workers each process splits its batch into, how the
// workers' gradients are combined, and whether the combined quantity is the gradient or the
// local optimizer step's parameter delta (the reference Adasum DistributedOptimizer).
//
//   pacer::DataParallelSpec dp;
//   dp.combine = "adasum";
//   dp.virtual_workers = 8;
//   std::shared_ptr<pacer::DataParallelPlan> plan = pacer::make_data_parallel_plan(dp, nullptr);
#include <memory>

#include "distributed/communicator.h"
#include "catalog/data_parallel_spec.h"
#include "distributed/gradient_combiner.h"

namespace pacer {

struct DataParallelPlan {
  std::shared_ptr<Communicator> communicator;  // null or size 1: one process
  std::shared_ptr<GradientCombiner> combiner;
  int virtual_workers = 1;      // > 1: shards per step inside this process (needs a single process)
  bool combine_deltas = false;  // true: local optimizer step per worker, deltas combined

  int processes() const { return communicator ? communicator->size() : 1; }
  int rank() const { return communicator ? communicator->rank() : 0; }
  int workers() const { return processes() * virtual_workers; }
  // "2 process(es) over gloo x 4 virtual worker(s), combine adasum (deltas)"
  std::string describe() const;
};

// The one place a plan is assembled: `spec` among the processes of `communicator` (null or size
// 1: this process alone). Null when nothing beyond one plain worker is asked for; across
// processes the combiner defaults to mean. InputError for an unknown combiner or delta mode
// without Adasum.
std::shared_ptr<DataParallelPlan> make_data_parallel_plan(const DataParallelSpec& spec,
                                                          std::shared_ptr<Communicator> communicator);

}  // namespace pacer
