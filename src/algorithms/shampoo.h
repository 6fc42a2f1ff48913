#pragma once
// Distributed Shampoo (Gupta et al. 2018; Shi et al. 2023), single-device, as
// facebookresearch/optimizers' DistributedShampoo: each parameter tensor is reshaped by merging
// small dimensions (up to max_preconditioner_dim) and cut into blocks of at most that size per
// dimension; each block of order k keeps one Kronecker factor per dimension (an EMA of the
// gradient contracted with itself over the other dimensions) and, every precondition_frequency
// steps, its inverse 2k-th root by symmetric eigendecomposition (spectrum shifted so its minimum
// is epsilon). The preconditioned direction is grafted onto the norm of Adam's (or SGD's) step
// per block; before start_preconditioning_step the grafted method runs alone. Decoupled weight
// decay, then momentum (optionally Nesterov, optionally as an EMA).
// The AlgoPerf v0.6 submission's own copy adds NAdam-style filtering (nadam), EMA momentum
// (ema_momentum), SGD grafting and an inverse-root override; Pacer has them as options.
//
//   pacer::ShampooRule rule({.max_preconditioner_dim = 1024, .precondition_frequency = 100}, infos);
//   rule.step(params, grads, 1e-3);
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct ShampooOptions {
  double beta1 = 0.9;    // EMA of the gradient that is preconditioned (0: the gradient itself)
  double beta2 = 0.999;  // EMA of the Kronecker factors (1: plain sum)
  double epsilon = 1e-12;
  double momentum = 0.0;
  bool nesterov = false;
  bool ema_momentum = false;  // b = m b + (1-m) d instead of b = m b + d (the v0.6 submission's)
  bool nadam = false;         // precondition (beta1 m + (1-beta1) g) / (1-beta1^t) instead of m / (1-beta1^t)
  double weight_decay = 0.0;  // decoupled
  int64_t max_preconditioner_dim = 1024;
  int64_t precondition_frequency = 100;
  int64_t start_preconditioning_step = 100;
  bool use_bias_correction = true;
  bool sgd_grafting = false;  // graft onto SGD's step norm instead of Adam's
  double grafting_beta2 = 0.999;
  double grafting_epsilon = 1e-8;
  bool merge_dims = true;
  int64_t inverse_root_override = 0;  // 0: the 2k-th root for a block of order k
};

// merge_small_dims: size-1 dimensions dropped, then neighbours merged from the last dimension on
// while their product stays <= threshold.
std::vector<int64_t> merge_small_dims(const std::vector<int64_t>& shape, int64_t threshold);

class ShampooRule : public TensorRule {
 public:
  ShampooRule(ShampooOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

  // The blocks of a tensor viewed with its merged shape, in the reference's order.
  std::vector<at::Tensor> blocks_of(const at::Tensor& tensor, size_t index) const;

 private:
  struct Block {
    std::vector<at::Tensor> factors, inverse_roots;
    at::Tensor filtered_grad, graft_exp_avg_sq, momentum;
  };
  // What one step shares across blocks: whether the inverse roots are refreshed, bias corrections.
  struct StepScalars {
    bool refresh = false;
    double bias_correction1 = 1.0, bias_correction2 = 1.0, graft_bias_correction2 = 1.0;
  };
  // Zero factors and identity roots for each block of a tensor, on its first step.
  static void allocate(std::vector<Block>& blocks, const std::vector<at::Tensor>& weights);
  // The factors' and the graft's statistics of gradient block g; the inverse roots on a refresh.
  void accumulate(Block& block, const at::Tensor& w, const at::Tensor& g, const StepScalars& s) const;
  // The step's direction for block w: preconditioned and grafted (or the graft alone before
  // start_preconditioning_step), weight decay, momentum.
  at::Tensor block_direction(Block& block, const at::Tensor& w, const at::Tensor& g, const StepScalars& s) const;
  ShampooOptions options_;
  int64_t step_ = 0;
  std::vector<std::vector<int64_t>> merged_shapes_;
  std::vector<std::vector<Block>> blocks_;  // per tensor; allocated on the first step
};

TensorwiseRecipe shampoo_recipe();

}  // namespace pacer
