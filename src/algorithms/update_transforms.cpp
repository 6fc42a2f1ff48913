#include "algorithms/update_transforms.h"

#include <ATen/ATen.h>

#include "algorithms/update_rules.h"
#include "core/error.h"

namespace pacer {

void StatelessTransform::load_state(const NamedTensors& state) {
  if (!state.empty()) throw InputError("unknown optimizer state entry '" + state.front().first + "'");
}

void GlobalNormClip::step(const std::vector<at::Tensor>& /*params*/, const std::vector<at::Tensor>& grads,
                          double /*lr*/) {
  if (grads.size() == 1) {  // the flat buffer: its own norm, as clip_grad_norm_if has always measured it
    at::Tensor flat = grads.front();
    norm_ = clip_grad_norm_if(flat, max_norm_);
    return;
  }
  // Per tensor: the norm of the tensors' norms, and each scaled by the one factor clip_grad_norm_if
  // would choose (max_norm / norm when the norm is finite and above max_norm, else 1).
  if (grads.empty()) {
    norm_ = at::Tensor();
    return;
  }
  std::vector<at::Tensor> norms;
  for (const auto& g : grads) norms.push_back(g.norm());
  norm_ = at::stack(norms).norm();
  if (max_norm_ <= 0.0) return;
  const at::Tensor factor =
      at::where(at::isfinite(norm_) & (norm_ > max_norm_), max_norm_ / norm_, at::ones_like(norm_));
  for (const auto& g : grads) g.mul_(factor);
}

void CoupledWeightDecay::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                              double /*lr*/) {
  if (weight_decay_ == 0.0) return;
  for (size_t i = 0; i < params.size(); ++i) grads[i].add_(params[i], weight_decay_);
}

void DecoupledWeightDecay::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& /*grads*/,
                                double lr) {
  if (weight_decay_ == 0.0) return;
  for (const auto& p : params) p.mul_(1.0 - lr * weight_decay_);
}

TransformFactory coupled_weight_decay() {
  return [](const Hyperparameters& hp) { return std::make_unique<CoupledWeightDecay>(hp.get("weight_decay")); };
}

TransformFactory decoupled_weight_decay() {
  return [](const Hyperparameters& hp) { return std::make_unique<DecoupledWeightDecay>(hp.get("weight_decay")); };
}

}  // namespace pacer
