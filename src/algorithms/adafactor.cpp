#include "algorithms/adafactor.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/builtin_recipe.h"
#include "algorithms/device_scalars.h"
#include "core/error.h"

namespace pacer {

AdafactorRule::AdafactorRule(AdafactorOptions options, const std::vector<TensorInfo>& tensors)
    : options_(options), row_var_(tensors.size()), col_var_(tensors.size()), variance_(tensors.size()) {}

void AdafactorRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) {
  ++step_;
  const double t = static_cast<double>(step_);
  const double one_minus_beta2 = std::pow(t, options_.beta2_decay);
  const double relative_step = std::min(lr, 1.0 / std::sqrt(t));
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    const at::Tensor& g = grads[i];
    const double eps1 = options_.eps1 > 0.0 ? options_.eps1
                        : p.scalar_type() == at::kDouble ? std::numeric_limits<double>::epsilon()
                                                          : std::numeric_limits<float>::epsilon();
    // On a GPU the two scales stay 0-dim tensors (algorithms/device_scalars.h); here, doubles.
    const bool on_device = scalars_stay_on_device(p);
    const double root_numel = std::sqrt(static_cast<double>(p.numel()));
    const at::Tensor alpha_on_device =
        on_device ? (p.norm() / root_numel).clamp_min_(options_.eps2).mul_(relative_step) : at::Tensor();
    const double alpha =
        on_device ? 0.0 : std::max(options_.eps2, p.norm().item<double>() / root_numel) * relative_step;
    if (options_.weight_decay != 0.0) p.mul_(1.0 - lr * options_.weight_decay);
    at::Tensor estimate;
    if (p.dim() > 1) {
      if (!row_var_[i].defined()) {
        auto row_shape = p.sizes().vec();
        row_shape.back() = 1;
        auto col_shape = p.sizes().vec();
        col_shape[col_shape.size() - 2] = 1;
        row_var_[i] = at::zeros(row_shape, p.options());
        col_var_[i] = at::zeros(col_shape, p.options());
      }
      const double cols = static_cast<double>(g.size(-1)), rows = static_cast<double>(g.size(-2));
      row_var_[i].lerp_(g.square().sum(-1, /*keepdim=*/true).div_(cols), one_minus_beta2);
      col_var_[i].lerp_(g.square().sum(-2, /*keepdim=*/true).div_(rows), one_minus_beta2);
      // The rank-1 reconstruction row x col / mean(row) of the second moment.
      estimate = at::matmul(row_var_[i], col_var_[i]);
      estimate.div_(row_var_[i].mean(-2, /*keepdim=*/true).clamp_min(eps1));
    } else {
      if (!variance_[i].defined()) variance_[i] = at::zeros_like(p);
      variance_[i].lerp_(g.square(), one_minus_beta2);
      estimate = variance_[i].clone();
    }
    at::Tensor update = estimate.clamp_min_(eps1 * eps1).rsqrt_().mul_(g);
    if (on_device) {
      const at::Tensor denominator = (update.norm() / root_numel).div_(options_.clip_threshold).clamp_min_(1.0);
      p.addcmul_(update, alpha_on_device / denominator, -1.0);
      continue;
    }
    const double update_rms = update.norm().item<double>() / std::sqrt(static_cast<double>(update.numel()));
    const double denominator = std::max(1.0, update_rms / options_.clip_threshold);
    p.add_(update, -alpha / denominator);
  }
}

NamedTensors AdafactorRule::state() const {
  NamedTensors out;
  out.emplace_back("step", at::scalar_tensor(step_, at::kLong));
  append_tensor_list(out, "row_var", row_var_);
  append_tensor_list(out, "col_var", col_var_);
  append_tensor_list(out, "variance", variance_);
  return out;
}

void AdafactorRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    if (key == "step") {
      step_ = value.item<int64_t>();
    } else if (!read_tensor_list(key, value, "row_var", row_var_) && !read_tensor_list(key, value, "col_var", col_var_) &&
               !read_tensor_list(key, value, "variance", variance_)) {
      throw InputError("unknown optimizer state entry '" + key + "'");
    }
  }
}

TensorwiseRecipe adafactor_recipe() {
  TensorwiseRecipe r = builtin_recipe("adafactor");
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t /*step_hint*/) {
    AdafactorOptions o;
    o.beta2_decay = hp.get("beta2_decay");
    o.eps1 = hp.get("epsilon1");
    o.eps2 = hp.get("epsilon2");
    o.clip_threshold = hp.get("clip_threshold");
    o.weight_decay = hp.get("weight_decay");
    return std::make_unique<AdafactorRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
