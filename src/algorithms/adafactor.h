#pragma once
// Adafactor (Shazeer & Stern 2018) as torch.optim.Adafactor (LibTorch 2.x; no C++ counterpart):
// the second moment of a tensor with two or more dimensions is kept as row and column statistics
// over its last two dimensions (memory O(rows + cols)); vectors keep it whole. No first moment.
// The step is relative: min(lr, 1/sqrt(t)) times max(eps2, RMS(param)), and the update is scaled
// down to RMS <= clip_threshold.
//
//   pacer::AdafactorRule rule({.eps2 = 1e-3}, infos);
//   rule.step(params, grads, 1e-2);
#include "algorithms/tensor_rule.h"
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct AdafactorOptions {
  double beta2_decay = -0.8;   // the second-moment decay at step t is 1 - t^beta2_decay
  double eps1 = 0.0;           // floor of the second moment; 0: the machine epsilon of the dtype
  double eps2 = 1e-3;          // floor of the parameter RMS in the relative step
  double clip_threshold = 1.0; // the update's RMS is capped at this
  double weight_decay = 0.0;   // decoupled: param *= 1 - lr * weight_decay
};

class AdafactorRule : public TensorRule {
 public:
  AdafactorRule(AdafactorOptions options, const std::vector<TensorInfo>& tensors);
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  AdafactorOptions options_;
  int64_t step_ = 0;
  std::vector<at::Tensor> row_var_, col_var_, variance_;
};

TensorwiseRecipe adafactor_recipe();

}  // namespace pacer
