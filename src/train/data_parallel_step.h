#pragma once
// Data parallelism owned by the framework, for any training algorithm. Worker w (a global index
// over processes and virtual workers) takes its shard of the global batch with its own dropout
// seed, so K processes and K virtual workers see the same shards and draw the same masks.
//   - gradient mode: the algorithm's step asks the context for its gradient (step_gradients);
//     this computes each worker's shard gradient and combines them (mean, sum, Adasum) over the
//     processes (c10d) or the virtual workers (threads), then the algorithm updates once;
//   - delta mode (Adasum's DistributedOptimizer): every worker runs the algorithm's whole step
//     on its shard from the same parameters, with its own optimizer state (one algorithm
//     instance per virtual worker), and the parameter deltas are combined.
//
//   pacer::DataParallelStep step(plan, algorithm, std::move(extra_workers));
//   pacer::UpdateResult r = step.update(workload, *network, batch, context);
#include <memory>
#include <vector>

#include "algorithms/gradient_computer.h"
#include "algorithms/training_algorithm.h"
#include "distributed/data_parallel_plan.h"
#include "distributed/in_process_communicator.h"
#include "models/flat_parameters.h"

namespace pacer {

class DataParallelStep : public GradientComputer {
 public:
  // `workers`: delta mode with K virtual workers needs the algorithm for workers 1..K-1
  // (initialized like `algorithm`, which is worker 0); empty otherwise. InputError when the plan
  // cannot run here.
  DataParallelStep(std::shared_ptr<const DataParallelPlan> plan, TrainingAlgorithm& algorithm, Network& network,
                   std::vector<std::unique_ptr<TrainingAlgorithm>> workers = {});

  UpdateResult update(const Workload& workload, Network& network, const Batch& batch, StepContext context);

  at::Tensor backward(const Workload& workload, Network& network, const Batch& batch,
                      const LossSettings& loss) override;

 private:
  UpdateResult update_with_deltas(const Workload& workload, Network& network, const Batch& batch,
                                  StepContext context);
  void seed_worker(int worker) const;
  Batch shard(const Batch& batch, int k) const;

  std::shared_ptr<const DataParallelPlan> plan_;
  TrainingAlgorithm& algorithm_;
  std::vector<std::unique_ptr<TrainingAlgorithm>> workers_;
  FlatParameters flat_;                     // the algorithm's flat buffers, adopted
  std::vector<int64_t> numels_;             // the parameter tensors' sizes, in flat order
  std::vector<at::Tensor> worker_buffers_;  // virtual workers: one flat buffer each
  std::unique_ptr<InProcessRanks> ranks_;   // virtual workers: their threads, kept for every step
  std::unique_ptr<Communicator> solo_;      // one process, one worker: combining is the identity
  uint64_t dropout_base_ = 0;               // this step's
  int backward_calls_ = 0;
};

}  // namespace pacer
