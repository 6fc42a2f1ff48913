#include "algorithms/gradient_computer.h"

#include <torch/csrc/autograd/autograd.h>

namespace pacer {

at::Tensor local_backward(const Workload& workload, Network& network, const Batch& batch, const LossSettings& loss) {
  // Zero in place: flattened parameters' .grad() are views of one buffer and must stay so.
  for (auto& p : network.parameters()) {
    if (p.grad().defined()) p.mutable_grad().zero_();
  }
  at::Tensor outputs = workload.model_fn(network, batch.inputs, ForwardMode::train, loss.dropout_rate);
  at::Tensor mean = workload.loss_fn(batch.targets, outputs, batch.weights, loss.label_smoothing).mean();
  torch::autograd::backward({mean});
  return mean.detach();
}

at::Tensor step_gradients(const StepContext& context, const Workload& workload, Network& network, const Batch& batch,
                          const LossSettings& loss) {
  if (context.gradients) return context.gradients->backward(workload, network, batch, loss);
  return local_backward(workload, network, batch, loss);
}

}  // namespace pacer
