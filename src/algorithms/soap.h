#pragma once
// SOAP (Vyas et al. 2024, "SOAP: Improving and Stabilizing Shampoo using Adam", nikhilvyas/SOAP
// soap.py): Adam run in the eigenbasis of Shampoo's Kronecker factors. Each dimension of a tensor
// with two or more dimensions whose size is at most max_precond_dim keeps a factor (an EMA of the
// gradient contracted with itself) and its eigenbasis Q; gradients are rotated into the bases,
// Adam's moments live there, and the step is rotated back. The first step only builds the bases
// (eigendecomposition; no update); every precondition_frequency steps each basis is refreshed by
// one power iteration and a QR decomposition, the second moment re-sorted with it. Vectors and
// larger dimensions are not rotated (plain Adam there).
//
//   pacer::SoapRule rule({.precondition_frequency = 10}, infos);
//   rule.step(params, grads, 3e-3);
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct SoapOptions {
  double beta1 = 0.95;
  double beta2 = 0.95;
  double shampoo_beta = -1.0;  // EMA of the factors; < 0: beta2
  double eps = 1e-8;
  double weight_decay = 0.01;  // decoupled, after the step: p -= lr * wd * p
  int64_t precondition_frequency = 10;
  int64_t max_precond_dim = 10000;
  bool correct_bias = true;
};

class SoapRule : public TensorRule {
 public:
  SoapRule(SoapOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  struct TensorState {
    int64_t step = 0;
    bool has_basis = false;
    at::Tensor exp_avg, exp_avg_sq;  // in the eigenbasis
    std::vector<at::Tensor> factors, bases;  // per dimension; undefined where not rotated
  };
  at::Tensor project(const at::Tensor& x, const TensorState& s, bool back) const;
  void update_factors(const at::Tensor& g, TensorState& s) const;

  SoapOptions options_;
  std::vector<TensorState> tensors_;
};

TensorwiseRecipe soap_recipe();

}  // namespace pacer
