#pragma once
// The gradient of a step, as the framework computes it. An algorithm asks the step context for
// it instead of calling backward itself, and so runs data-parallel without knowing: with one
// worker it is the plain forward and backward pass; with several (processes and/or virtual
// workers, `--combine`) each worker takes its shard of the global batch and the framework
// combines their gradients (mean, sum or Adasum) before the algorithm sees them, as AlgoPerf's
// framework does with DDP. The combined gradient is left in the parameters' .grad().
//
//   pacer::UpdateResult MyAlgorithm::update(const pacer::Workload& w, pacer::Network& net,
//                                           const pacer::Batch& batch, const pacer::StepContext& context) {
//     at::Tensor loss = pacer::step_gradients(context, w, net, batch, {/*dropout_rate=*/0.1});
//     at::NoGradGuard no_grad;
//     for (auto& p : net.parameters()) p.add_(p.grad(), -0.01);
//     return {loss};
//   }
#include <ATen/core/Tensor.h>

#include "algorithms/runner_state.h"
#include "core/export.h"
#include "data/batch.h"
#include "models/network.h"
#include "workloads/workload.h"

namespace pacer {

struct PACER_API LossSettings {
  double dropout_rate = 0.0;     // passed to the model's forward
  double label_smoothing = 0.0;  // passed to the loss
};

class PACER_API GradientComputer {
 public:
  virtual ~GradientComputer() = default;
  // Zeroes the gradients, leaves the gradient of the mean training loss of `batch` in the
  // parameters' .grad() and returns that loss (detached scalar; the mean over workers).
  virtual at::Tensor backward(const Workload& workload, Network& network, const Batch& batch,
                              const LossSettings& loss) = 0;
};

// One worker's pass over the whole of `batch` in this process.
PACER_API at::Tensor local_backward(const Workload& workload, Network& network, const Batch& batch, const LossSettings& loss);

// The step's gradient: the context's computer (set by the trial runner) or, outside a trial,
// local_backward.
PACER_API at::Tensor step_gradients(const StepContext& context, const Workload& workload, Network& network, const Batch& batch,
                          const LossSettings& loss);

}  // namespace pacer
