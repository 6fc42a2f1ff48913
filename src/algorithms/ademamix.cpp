#include "algorithms/ademamix.h"

#include <ATen/ATen.h>

#include <cmath>

#include "algorithms/builtin_recipe.h"
#include "core/error.h"

namespace pacer {

double AdemamixRule::alpha_at(int64_t t, const AdemamixOptions& o) {
  if (o.alpha_beta3_warmup <= 0 || t >= o.alpha_beta3_warmup) return o.alpha;
  return o.alpha * static_cast<double>(t) / static_cast<double>(o.alpha_beta3_warmup);
}

double AdemamixRule::beta3_at(int64_t t, const AdemamixOptions& o) {
  if (o.alpha_beta3_warmup <= 0 || t >= o.alpha_beta3_warmup) return o.beta3;
  // Linear in the half-life f(beta) = ln(0.5)/ln(beta) - 1, from beta1's to beta3's.
  auto half_life = [](double beta) { return std::log(0.5) / std::log(beta + 1e-8) - 1.0; };
  const double a = static_cast<double>(t) / static_cast<double>(o.alpha_beta3_warmup);
  const double h = (1.0 - a) * half_life(o.beta1) + a * half_life(o.beta3);
  return std::pow(0.5, 1.0 / (h + 1.0));
}

AdemamixRule::AdemamixRule(AdemamixOptions options, const std::vector<TensorInfo>& tensors)
    : options_(options), exp_avg_fast_(tensors.size()), exp_avg_slow_(tensors.size()), exp_avg_sq_(tensors.size()) {}

void AdemamixRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) {
  ++step_;
  const double alpha = alpha_at(step_, options_);
  const double beta3 = beta3_at(step_, options_);
  const double bias_correction1 = 1.0 - std::pow(options_.beta1, static_cast<double>(step_));
  const double bias_correction2 = 1.0 - std::pow(options_.beta2, static_cast<double>(step_));
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    const at::Tensor& g = grads[i];
    if (!exp_avg_slow_[i].defined()) {
      exp_avg_fast_[i] = at::zeros_like(p);
      exp_avg_slow_[i] = at::zeros_like(p);
      exp_avg_sq_[i] = at::zeros_like(p);
    }
    exp_avg_fast_[i].mul_(options_.beta1).add_(g, 1.0 - options_.beta1);
    exp_avg_slow_[i].mul_(beta3).add_(g, 1.0 - beta3);
    exp_avg_sq_[i].mul_(options_.beta2).addcmul_(g, g, 1.0 - options_.beta2);
    at::Tensor denominator = exp_avg_sq_[i].sqrt().div_(std::sqrt(bias_correction2)).add_(options_.eps);
    at::Tensor update = (exp_avg_fast_[i] / bias_correction1).add_(exp_avg_slow_[i], alpha).div_(denominator);
    if (options_.weight_decay != 0.0) update.add_(p, options_.weight_decay);
    p.add_(update, -lr);
  }
}

NamedTensors AdemamixRule::state() const {
  NamedTensors out;
  out.emplace_back("step", at::scalar_tensor(step_, at::kLong));
  append_tensor_list(out, "exp_avg_fast", exp_avg_fast_);
  append_tensor_list(out, "exp_avg_slow", exp_avg_slow_);
  append_tensor_list(out, "exp_avg_sq", exp_avg_sq_);
  return out;
}

void AdemamixRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    if (key == "step") {
      step_ = value.item<int64_t>();
    } else if (!read_tensor_list(key, value, "exp_avg_fast", exp_avg_fast_) &&
               !read_tensor_list(key, value, "exp_avg_slow", exp_avg_slow_) &&
               !read_tensor_list(key, value, "exp_avg_sq", exp_avg_sq_)) {
      throw InputError("unknown optimizer state entry '" + key + "'");
    }
  }
}

TensorwiseRecipe ademamix_recipe() {
  TensorwiseRecipe r = builtin_recipe("ademamix");
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t step_hint) {
    AdemamixOptions o;
    o.beta1 = 1.0 - hp.get("one_minus_beta1");
    o.beta2 = hp.get("beta2");
    o.beta3 = hp.get("beta3");
    o.alpha = hp.get("alpha");
    o.weight_decay = hp.get("weight_decay");
    o.alpha_beta3_warmup = static_cast<int64_t>(hp.get("alpha_beta3_warmup_factor") * static_cast<double>(step_hint));
    return std::make_unique<AdemamixRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
