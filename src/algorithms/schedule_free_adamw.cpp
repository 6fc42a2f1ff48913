#include "algorithms/schedule_free_adamw.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "algorithms/builtin_recipe.h"
#include "core/error.h"

namespace pacer {

ScheduleFreeAdamwRule::ScheduleFreeAdamwRule(ScheduleFreeAdamwOptions options, const std::vector<TensorInfo>& tensors)
    : options_(options), z_(tensors.size()), exp_avg_sq_(tensors.size()) {}

void ScheduleFreeAdamwRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                                 double lr) {
  if (at_eval_point_) throw Error("schedule_free_adamw: step taken at the evaluation point x (call to_train_point)");
  const double k1 = static_cast<double>(step_ + 1);
  const double bias_correction2 = 1.0 - std::pow(options_.beta2, k1);
  lr_max_ = std::max(lr_max_, lr);
  const double weight = std::pow(k1, options_.r) * std::pow(lr_max_, options_.weight_lr_power);
  weight_sum_ += weight;
  const double ckp1 = weight_sum_ != 0.0 ? weight / weight_sum_ : 0.0;
  const double adaptive_y_lr = lr * (options_.beta1 * (1.0 - ckp1) - 1.0);
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& y = params[i];
    const at::Tensor& g = grads[i];
    if (!z_[i].defined()) {
      z_[i] = y.clone();
      exp_avg_sq_[i] = at::zeros_like(y);
    }
    exp_avg_sq_[i].mul_(options_.beta2).addcmul_(g, g, 1.0 - options_.beta2);
    at::Tensor normalized = g / (exp_avg_sq_[i] / bias_correction2).sqrt_().add_(options_.eps);
    if (options_.weight_decay != 0.0) normalized.add_(y, options_.weight_decay);
    y.lerp_(z_[i], ckp1);
    y.add_(normalized, adaptive_y_lr);
    z_[i].sub_(normalized, lr);
  }
  ++step_;
}

void ScheduleFreeAdamwRule::to_eval_point(const std::vector<at::Tensor>& params) {
  if (at_eval_point_) return;
  for (size_t i = 0; i < params.size(); ++i) {
    if (z_[i].defined()) params[i].lerp_(z_[i], 1.0 - 1.0 / options_.beta1);
  }
  at_eval_point_ = true;
}

void ScheduleFreeAdamwRule::to_train_point(const std::vector<at::Tensor>& params) {
  if (!at_eval_point_) return;
  for (size_t i = 0; i < params.size(); ++i) {
    if (z_[i].defined()) params[i].lerp_(z_[i], 1.0 - options_.beta1);
  }
  at_eval_point_ = false;
}

NamedTensors ScheduleFreeAdamwRule::state() const {
  NamedTensors out;
  out.emplace_back("step", at::scalar_tensor(step_, at::kLong));
  out.emplace_back("lr_max", at::scalar_tensor(lr_max_, at::kDouble));
  out.emplace_back("weight_sum", at::scalar_tensor(weight_sum_, at::kDouble));
  out.emplace_back("at_eval_point", at::scalar_tensor(static_cast<int64_t>(at_eval_point_), at::kLong));
  append_tensor_list(out, "z", z_);
  append_tensor_list(out, "exp_avg_sq", exp_avg_sq_);
  return out;
}

void ScheduleFreeAdamwRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    if (key == "step") {
      step_ = value.item<int64_t>();
    } else if (key == "lr_max") {
      lr_max_ = value.item<double>();
    } else if (key == "weight_sum") {
      weight_sum_ = value.item<double>();
    } else if (key == "at_eval_point") {
      at_eval_point_ = value.item<int64_t>() != 0;
    } else if (!read_tensor_list(key, value, "z", z_) && !read_tensor_list(key, value, "exp_avg_sq", exp_avg_sq_)) {
      throw InputError("unknown optimizer state entry '" + key + "'");
    }
  }
}

TensorwiseRecipe schedule_free_adamw_recipe() {
  TensorwiseRecipe r = builtin_recipe("schedule_free_adamw");
  r.cosine_decay = false;
  r.warmup_from_first_step = true;
  r.recompute_batch_norm_for_eval = true;
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t /*step_hint*/) {
    ScheduleFreeAdamwOptions o;
    o.beta1 = 1.0 - hp.get("one_minus_beta1");
    o.beta2 = hp.get("beta2");
    o.eps = hp.get("epsilon");
    o.weight_decay = hp.get("weight_decay");
    o.r = hp.get("r");
    o.weight_lr_power = hp.get("weight_lr_power");
    return std::make_unique<ScheduleFreeAdamwRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
