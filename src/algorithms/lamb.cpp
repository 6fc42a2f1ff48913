#include "algorithms/lamb.h"

#include <ATen/ATen.h>

#include "algorithms/builtin_recipe.h"
#include "algorithms/device_scalars.h"
#include "core/error.h"

namespace pacer {

LambRule::LambRule(LambOptions options, const std::vector<TensorInfo>& tensors)
    : options_(options), exp_avg_(tensors.size()), exp_avg_sq_(tensors.size()) {}

void LambRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) {
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    const at::Tensor& g = grads[i];
    if (!exp_avg_[i].defined()) {
      exp_avg_[i] = at::zeros_like(p);
      exp_avg_sq_[i] = at::zeros_like(p);
    }
    exp_avg_[i].mul_(options_.beta1).add_(g, 1.0 - options_.beta1);
    exp_avg_sq_[i].mul_(options_.beta2).addcmul_(g, g, 1.0 - options_.beta2);
    at::Tensor direction = exp_avg_[i] / (exp_avg_sq_[i].sqrt() + options_.eps);
    if (options_.weight_decay != 0.0) direction.add_(p, options_.weight_decay);
    if (scalars_stay_on_device(p)) {  // the same trust ratio as a 0-dim tensor: no host sync
      const at::Tensor weight_norm = p.norm().clamp_max_(10.0);
      const at::Tensor direction_norm = direction.norm();
      const at::Tensor trust =
          at::where((weight_norm == 0) | (direction_norm == 0), at::ones_like(weight_norm), weight_norm / direction_norm);
      p.addcmul_(direction, trust, -lr);
      continue;
    }
    // One host sync per tensor for the two norms: the trust ratio is a per-tensor scalar.
    const double weight_norm = std::min(p.norm().item<double>(), 10.0);
    const double direction_norm = direction.norm().item<double>();
    const double trust = (weight_norm == 0.0 || direction_norm == 0.0) ? 1.0 : weight_norm / direction_norm;
    p.add_(direction, -lr * trust);
  }
}

NamedTensors LambRule::state() const {
  NamedTensors out;
  append_tensor_list(out, "exp_avg", exp_avg_);
  append_tensor_list(out, "exp_avg_sq", exp_avg_sq_);
  return out;
}

void LambRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    if (read_tensor_list(key, value, "exp_avg_sq", exp_avg_sq_) || read_tensor_list(key, value, "exp_avg", exp_avg_)) {
      continue;
    }
    throw InputError("unknown optimizer state entry '" + key + "'");
  }
}

TensorwiseRecipe lamb_recipe() {
  TensorwiseRecipe r = builtin_recipe("lamb");
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t /*step_hint*/) {
    LambOptions o;
    o.beta1 = 1.0 - hp.get("one_minus_beta1");
    o.beta2 = hp.get("beta2");
    o.eps = hp.get("epsilon");
    o.weight_decay = hp.get("weight_decay");
    return std::make_unique<LambRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
