#pragma once
// Muon (Keller Jordan 2024, KellerJordan/Muon muon.py): for the hidden matrices (2-D weights and
// convolutions flattened to [out, in*kh*kw], except the output head), Nesterov momentum whose
// update is orthogonalized by a quintic Newton-Schulz iteration (coefficients 3.4445, -4.7750,
// 2.0315) and scaled by sqrt(max(1, rows/cols)); every other tensor (embeddings, the head, gains,
// biases) takes an AdamW step with its own learning rate, as the reference's MuonWithAuxAdam.
// The reference iterates in bfloat16 on GPU; Pacer iterates in the parameters' dtype.
//
//   pacer::MuonRule rule({.momentum = 0.95, .adam_lr_ratio = 0.015}, infos);
//   rule.step(params, grads, 0.02);
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct MuonOptions {
  double momentum = 0.95;
  bool nesterov = true;
  int64_t ns_steps = 5;
  double weight_decay = 0.0;    // decoupled, both groups: p *= 1 - lr * weight_decay (each its lr)
  double adam_lr_ratio = 0.015; // the AdamW group's learning rate relative to Muon's (the reference's
                                // 3e-4 / 0.02; Pacer's default adam_learning_rate is 0.003, tuned
                                // for its short runs)
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.95;
  double adam_eps = 1e-10;
};

// The orthogonalization: an approximation of U V^T for G = U S V^T, by `steps` quintic
// Newton-Schulz iterations on G / |G|_F (transposed when G has more rows than columns).
at::Tensor newton_schulz_orthogonalize(const at::Tensor& matrix, int64_t steps);

class MuonRule : public TensorRule {
 public:
  MuonRule(MuonOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

  // Whether tensor `info` takes Muon's orthogonalized step (else AdamW's).
  static bool is_hidden_matrix(const TensorInfo& info);

 private:
  MuonOptions options_;
  std::vector<bool> hidden_;
  int64_t step_ = 0;  // the AdamW group's bias-correction counter
  std::vector<at::Tensor> momentum_buffer_, exp_avg_, exp_avg_sq_;
};

TensorwiseRecipe muon_recipe();

}  // namespace pacer
