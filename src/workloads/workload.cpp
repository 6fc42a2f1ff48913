#include "workloads/workload.h"

#include <ATen/ATen.h>

#include "core/error.h"

namespace pacer {

LossOutput weighted_loss(at::Tensor per_example, const at::Tensor& weights) {
  LossOutput out;
  if (weights.defined()) {
    out.per_example = per_example * weights;
    out.n_valid = weights.sum();
  } else {
    out.n_valid = at::scalar_tensor(static_cast<double>(per_example.size(0)), per_example.options());
    out.per_example = std::move(per_example);
  }
  out.summed = out.per_example.sum();
  return out;
}

at::Tensor Workload::model_fn(Network& network, const at::Tensor& inputs, ForwardMode mode,
                              double dropout_rate) const {
  const bool training = mode == ForwardMode::train;
  if (network.is_training() != training) network.train(training);
  return network.forward(inputs, dropout_rate);
}

}  // namespace pacer
