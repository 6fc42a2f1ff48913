#include "train/gradient_norms.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "core/error.h"

namespace pacer {

GradientNormSample measure_gradient_norms(const Workload& workload, Network& network, const Batch& batch, int shards) {
  const int64_t n = batch.inputs.size(0);
  if (shards < 2 || n % shards != 0) {
    throw InputError("noise scale: a batch of " + std::to_string(n) + " does not split into " + std::to_string(shards) +
                     " equal shards (need at least 2)");
  }
  const int64_t per_shard = n / shards;
  auto params = network.parameters();
  at::Tensor sum;
  double small_sq = 0.0;
  for (int k = 0; k < shards; ++k) {
    const at::Tensor inputs = batch.inputs.narrow(0, k * per_shard, per_shard);
    const at::Tensor targets = batch.targets.narrow(0, k * per_shard, per_shard);
    const at::Tensor weights = batch.weights.defined() ? batch.weights.narrow(0, k * per_shard, per_shard) : at::Tensor();
    const at::Tensor outputs = workload.model_fn(network, inputs, ForwardMode::train, 0.0);
    const at::Tensor loss = workload.loss_fn(targets, outputs, weights, 0.0).mean();
    const auto grads = torch::autograd::grad({loss}, params);
    std::vector<at::Tensor> flat;
    for (const auto& g : grads) flat.push_back(g.reshape({-1}).to(at::kDouble));
    const at::Tensor g = at::cat(flat);
    small_sq += g.dot(g).item<double>();
    sum = sum.defined() ? sum + g : g;
  }
  const at::Tensor mean = sum / static_cast<double>(shards);
  GradientNormSample s;
  s.small_batch = per_shard;
  s.small_sq = small_sq / shards;
  s.big_batch = n;
  s.big_sq = mean.dot(mean).item<double>();
  return s;
}

}  // namespace pacer
