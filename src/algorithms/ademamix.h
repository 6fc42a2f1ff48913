#pragma once
// AdEMAMix (Pagliardini, Ablin & Grangier 2024, apple/ml-ademamix): Adam plus a second, slow EMA
// of the gradient (beta3 close to 1) added with weight alpha, so old gradients keep contributing:
// update = (m_fast / (1 - beta1^t) + alpha * m_slow) / (sqrt(v / (1 - beta2^t)) + eps) + wd * w.
// alpha and beta3 warm up over alpha_beta3_warmup steps (alpha linearly, beta3 linearly in its
// half-life) because a slow EMA started from zero is too small and too noisy early on.
//
//   pacer::AdemamixRule rule({.beta3 = 0.9999, .alpha = 5.0, .alpha_beta3_warmup = 1000}, infos);
//   rule.step(params, grads, 1e-3);
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct AdemamixOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double beta3 = 0.9999;           // slow EMA decay after the warmup
  double alpha = 5.0;              // weight of the slow EMA after the warmup
  int64_t alpha_beta3_warmup = 0;  // steps; 0: no warmup
  double eps = 1e-8;
  double weight_decay = 0.0;
};

class AdemamixRule : public TensorRule {
 public:
  AdemamixRule(AdemamixOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

  // The warmed-up alpha and beta3 at step t (1-based).
  static double alpha_at(int64_t t, const AdemamixOptions& o);
  static double beta3_at(int64_t t, const AdemamixOptions& o);

 private:
  AdemamixOptions options_;
  int64_t step_ = 0;
  std::vector<at::Tensor> exp_avg_fast_, exp_avg_slow_, exp_avg_sq_;
};

TensorwiseRecipe ademamix_recipe();

}  // namespace pacer
