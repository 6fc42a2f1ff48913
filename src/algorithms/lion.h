#pragma once
// Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms"), as google/automl's
// lion_pytorch.py: the step is the sign of an interpolation of the momentum and the gradient, so
// every coordinate moves by exactly lr. Its decoupled weight decay is the recipe's transform
// (algorithms/update_transforms.h), applied before the step as the reference does.
//
//   pacer::DecoupledWeightDecay decay(0.1);
//   pacer::LionRule rule({.beta1 = 0.9, .beta2 = 0.99}, infos);
//   decay.step(params, grads, 3e-4);
//   rule.step(params, grads, 3e-4);
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct LionOptions {
  double beta1 = 0.9;   // interpolation of momentum and gradient for the step's sign
  double beta2 = 0.99;  // momentum decay
};

class LionRule : public TensorRule {
 public:
  LionRule(LionOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  LionOptions options_;
  std::vector<at::Tensor> exp_avg_;
};

TensorwiseRecipe lion_recipe();

}  // namespace pacer
