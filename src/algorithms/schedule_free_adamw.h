#pragma once
// Schedule-Free AdamW (Defazio et al. 2024, facebookresearch/schedule_free adamw_schedulefree.py):
// no decay schedule; the iterate z takes Adam-normalized gradient steps, x is a weighted running
// average of z, and gradients are taken at y, an interpolation of the two. The parameters hold y
// during training; to_eval_point moves them to x = (y - (1 - beta1) z) / beta1 and to_train_point
// back. The averaging weight of step k is k^r * lr_max^weight_lr_power.
//
//   pacer::ScheduleFreeAdamwRule rule({.beta2 = 0.99552, .weight_decay = 0.08}, infos);
//   rule.step(params, grads, 0.0025);   // lr includes the warmup
//   rule.to_eval_point(params);          // evaluate here
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct ScheduleFreeAdamwOptions {
  double beta1 = 0.9;  // interpolation between x and z for y
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;  // applied at y
  double r = 0.0;
  double weight_lr_power = 2.0;
};

class ScheduleFreeAdamwRule : public TensorRule {
 public:
  ScheduleFreeAdamwRule(ScheduleFreeAdamwOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  void to_eval_point(const std::vector<at::Tensor>& params) override;
  void to_train_point(const std::vector<at::Tensor>& params) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  ScheduleFreeAdamwOptions options_;
  int64_t step_ = 0;
  double lr_max_ = -1.0;
  double weight_sum_ = 0.0;
  bool at_eval_point_ = false;
  std::vector<at::Tensor> z_, exp_avg_sq_;
};

TensorwiseRecipe schedule_free_adamw_recipe();

}  // namespace pacer
