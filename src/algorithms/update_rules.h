#pragma once
// The optimizer math of the baselines, on whole tensors (Pacer applies them to the flat
// parameter buffer, so one call updates the whole model). Written on tensor ops rather than
// torch::optim so the math is Pacer's own and identical across LibTorch versions. Call under
// at::NoGradGuard.
//
//   pacer::SgdState state;
//   pacer::sgd_step(params, grads, state, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
//   pacer::AdamState adam;
//   pacer::adam_step(params, grads, adam, {.lr = 1e-3, .variant = pacer::AdamVariant::nadamw});
#include <ATen/core/Tensor.h>

#include <string>

#include "algorithms/named_tensors.h"
#include "core/export.h"

namespace pacer {

struct PACER_API SgdOptions {
  double lr = 0.1;
  double momentum = 0.0;  // 0: plain SGD
  bool nesterov = false;
  double weight_decay = 0.0;  // L2: added to the gradient before momentum (torch.optim.SGD)
};

struct PACER_API SgdState {
  at::Tensor momentum_buffer;  // undefined until the first step with momentum
  at::Tensor scratch;
};

// torch.optim.SGD semantics (dampening 0): buf = g on the first step, then buf = m*buf + g;
// heavy ball steps along buf, Nesterov along g + m*buf.
PACER_API void sgd_step(at::Tensor& params, const at::Tensor& grads, SgdState& state, const SgdOptions& options);

enum class AdamVariant {
  adam,    // torch.optim.Adam: L2 weight decay added to the gradient
  adamw,   // torch.optim.AdamW: decoupled decay, params *= 1 - lr*wd
  nadamw,  // AlgoPerf NAdamW: Nesterov first moment, decoupled decay
};

struct PACER_API AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  AdamVariant variant = AdamVariant::adam;
};

struct PACER_API AdamState {
  int64_t step = 0;  // t, incremented before use
  at::Tensor exp_avg, exp_avg_sq;
  at::Tensor scratch_numerator, scratch_denominator, scratch_grad;
};

PACER_API void adam_step(at::Tensor& params, const at::Tensor& grads, AdamState& state, const AdamOptions& options);

// The Adam state as named tensors ("step", "exp_avg", "exp_avg_sq"), and back: read_adam_state
// takes one entry and returns false when the key is not one of those.
PACER_API void append_adam_state(NamedTensors& out, const AdamState& state);
PACER_API bool read_adam_state(const std::string& key, const at::Tensor& value, AdamState& state);

// Scales grads in place so their global L2 norm is at most max_norm; returns the norm before.
PACER_API double clip_grad_norm(at::Tensor& grads, double max_norm);
// The global norm of `grads` (a scalar tensor, before clipping); clips to max_norm when > 0.
PACER_API at::Tensor clip_grad_norm_if(at::Tensor& grads, double max_norm);

}  // namespace pacer
