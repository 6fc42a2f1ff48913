#include "algorithms/lion.h"

#include <ATen/ATen.h>

#include "algorithms/builtin_recipe.h"
#include "core/error.h"

namespace pacer {

LionRule::LionRule(LionOptions options, const std::vector<TensorInfo>& tensors)
    : options_(options), exp_avg_(tensors.size()) {}

void LionRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) {
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    const at::Tensor& g = grads[i];
    if (!exp_avg_[i].defined()) exp_avg_[i] = at::zeros_like(p);
    at::Tensor& m = exp_avg_[i];
    // The sign of beta1*m + (1-beta1)*g, taken before the momentum itself moves (with beta2).
    p.add_(at::sign(m * options_.beta1 + g * (1.0 - options_.beta1)), -lr);
    m.mul_(options_.beta2).add_(g, 1.0 - options_.beta2);
  }
}

NamedTensors LionRule::state() const {
  NamedTensors out;
  append_tensor_list(out, "exp_avg", exp_avg_);
  return out;
}

void LionRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    if (!read_tensor_list(key, value, "exp_avg", exp_avg_)) throw InputError("unknown optimizer state entry '" + key + "'");
  }
}

TensorwiseRecipe lion_recipe() {
  TensorwiseRecipe r = builtin_recipe("lion");
  r.transforms = {decoupled_weight_decay()};  // before the step, as lion_pytorch.py
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t /*step_hint*/) {
    LionOptions o;
    o.beta1 = 1.0 - hp.get("one_minus_beta1");
    o.beta2 = hp.get("beta2");
    return std::make_unique<LionRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
