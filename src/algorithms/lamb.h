#pragma once
// LAMB (You et al. 2020), as cybertronai/pytorch-lamb's lamb.py: an Adam direction (no bias
// correction, as that code) plus decoupled weight decay, scaled per tensor by the trust ratio
// |w| / |direction| with |w| clamped to [0, 10], so each layer moves by a fraction of its norm.
//
//   pacer::LambRule rule({.weight_decay = 0.01}, infos);
//   rule.step(params, grads, 1e-3);
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct LambOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-6;
  double weight_decay = 0.0;
};

class LambRule : public TensorRule {
 public:
  LambRule(LambOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  LambOptions options_;
  std::vector<at::Tensor> exp_avg_, exp_avg_sq_;
};

TensorwiseRecipe lamb_recipe();

}  // namespace pacer
