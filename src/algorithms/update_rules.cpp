#include "algorithms/update_rules.h"

#include "algorithms/device_scalars.h"

#include <ATen/ATen.h>

#include <cmath>

namespace pacer {

void sgd_step(at::Tensor& params, const at::Tensor& grads, SgdState& state, const SgdOptions& o) {
  const at::Tensor* g = &grads;
  if (o.weight_decay != 0.0) {
    if (!state.scratch.defined()) state.scratch = at::empty_like(grads);
    at::add_out(state.scratch, grads, params, o.weight_decay);
    g = &state.scratch;
  }
  if (o.momentum == 0.0) {
    params.add_(*g, -o.lr);
    return;
  }
  if (!state.momentum_buffer.defined()) {
    state.momentum_buffer = g->clone();
  } else {
    state.momentum_buffer.mul_(o.momentum).add_(*g);
  }
  if (o.nesterov) {
    // params -= lr * (g + m * buf), without a temporary.
    params.add_(*g, -o.lr).add_(state.momentum_buffer, -o.lr * o.momentum);
  } else {
    params.add_(state.momentum_buffer, -o.lr);
  }
}

void adam_step(at::Tensor& params, const at::Tensor& grads, AdamState& s, const AdamOptions& o) {
  if (!s.exp_avg.defined()) {
    s.exp_avg = at::zeros_like(params);
    s.exp_avg_sq = at::zeros_like(params);
  }
  if (!s.scratch_denominator.defined()) s.scratch_denominator = at::empty_like(params);
  s.step += 1;
  const double t = static_cast<double>(s.step);
  const double bias_correction1 = 1.0 - std::pow(o.beta1, t);
  const double bias_correction2 = 1.0 - std::pow(o.beta2, t);

  const at::Tensor* g = &grads;
  if (o.variant == AdamVariant::adam && o.weight_decay != 0.0) {
    if (!s.scratch_grad.defined()) s.scratch_grad = at::empty_like(grads);
    at::add_out(s.scratch_grad, grads, params, o.weight_decay);
    g = &s.scratch_grad;
  }
  if (o.variant != AdamVariant::adam && o.weight_decay != 0.0) params.mul_(1.0 - o.lr * o.weight_decay);

  s.exp_avg.mul_(o.beta1).add_(*g, 1.0 - o.beta1);
  s.exp_avg_sq.mul_(o.beta2).addcmul_(*g, *g, 1.0 - o.beta2);

  // denominator = sqrt(v) / sqrt(bc2) + eps  (= sqrt(v_hat) + eps)
  at::sqrt_out(s.scratch_denominator, s.exp_avg_sq);
  s.scratch_denominator.div_(std::sqrt(bias_correction2)).add_(o.eps);
  const double step_size = o.lr / bias_correction1;
  if (o.variant == AdamVariant::nadamw) {
    // Nesterov: the numerator looks one step ahead, b1*m + (1-b1)*g.
    if (!s.scratch_numerator.defined()) s.scratch_numerator = at::empty_like(params);
    at::mul_out(s.scratch_numerator, s.exp_avg, o.beta1);
    s.scratch_numerator.add_(*g, 1.0 - o.beta1);
    params.addcdiv_(s.scratch_numerator, s.scratch_denominator, -step_size);
  } else {
    params.addcdiv_(s.exp_avg, s.scratch_denominator, -step_size);
  }
}

double clip_grad_norm(at::Tensor& grads, double max_norm) {
  const double norm = grads.norm().item<double>();
  if (std::isfinite(norm) && norm > max_norm && norm > 0.0) grads.mul_(max_norm / norm);
  return norm;
}

at::Tensor clip_grad_norm_if(at::Tensor& grads, double max_norm) {
  at::Tensor norm = grads.norm();
  if (max_norm > 0.0 && scalars_stay_on_device(grads)) {  // the same factor, chosen on the device
    grads.mul_(at::where(at::isfinite(norm) & (norm > max_norm), max_norm / norm, at::ones_like(norm)));
  } else if (max_norm > 0.0) {
    const double n = norm.item<double>();
    if (std::isfinite(n) && n > max_norm && n > 0.0) grads.mul_(max_norm / n);
  }
  return norm;
}

void append_adam_state(NamedTensors& out, const AdamState& state) {
  out.emplace_back("step", at::scalar_tensor(static_cast<int64_t>(state.step), at::kLong));
  if (state.exp_avg.defined()) {
    out.emplace_back("exp_avg", state.exp_avg.clone());
    out.emplace_back("exp_avg_sq", state.exp_avg_sq.clone());
  }
}

bool read_adam_state(const std::string& key, const at::Tensor& value, AdamState& state) {
  if (key == "step") {
    state.step = value.item<int64_t>();
  } else if (key == "exp_avg") {
    state.exp_avg = value.clone();
  } else if (key == "exp_avg_sq") {
    state.exp_avg_sq = value.clone();
  } else {
    return false;
  }
  return true;
}

}  // namespace pacer
