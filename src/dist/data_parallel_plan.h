#pragma once
// What a data-parallel training step needs to know: the processes it runs among (a c10d
// communicator, or none), how many virtual workers each process splits its batch into, how the
// workers' gradients are combined, and whether the combined quantity is the gradient or the
// local optimizer step's parameter delta (the reference Adasum DistributedOptimizer).
//
//   auto plan = std::make_shared<pacer::DataParallelPlan>();
//   plan->combiner = pacer::make_gradient_combiner("adasum");
//   plan->virtual_workers = 8;
//   algorithm.set_data_parallel(plan);
#include <memory>

#include "dist/communicator.h"
#include "dist/gradient_combiner.h"

namespace pacer {

struct DataParallelPlan {
  std::shared_ptr<Communicator> communicator;  // null or size 1: one process
  std::shared_ptr<GradientCombiner> combiner;
  int virtual_workers = 1;      // > 1: shards per step inside this process (needs a single process)
  bool combine_deltas = false;  // true: local optimizer step per worker, deltas combined

  int processes() const { return communicator ? communicator->size() : 1; }
  int rank() const { return communicator ? communicator->rank() : 0; }
  int workers() const { return processes() * virtual_workers; }
};

}  // namespace pacer
