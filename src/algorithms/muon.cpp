#include "algorithms/muon.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "algorithms/builtin_recipe.h"
#include "core/error.h"

namespace pacer {

at::Tensor newton_schulz_orthogonalize(const at::Tensor& matrix, int64_t steps) {
  constexpr double a = 3.4445, b = -4.7750, c = 2.0315;
  const bool transposed = matrix.size(0) > matrix.size(1);
  at::Tensor x = transposed ? matrix.t() : matrix;
  x = x / (x.norm() + 1e-7);
  for (int64_t k = 0; k < steps; ++k) {
    at::Tensor gram = at::matmul(x, x.t());
    at::Tensor poly = at::addmm(gram, gram, gram, /*beta=*/b, /*alpha=*/c);  // b*A + c*A@A
    x = at::addmm(x, poly, x, /*beta=*/a, /*alpha=*/1.0);                    // a*X + B@X
  }
  return transposed ? x.t() : x;
}

bool MuonRule::is_hidden_matrix(const TensorInfo& info) {
  return info.shape.size() >= 2 && !info.is_output_head && info.type != ParamType::embedding;
}

MuonRule::MuonRule(MuonOptions options, const std::vector<TensorInfo>& tensors)
    : options_(options),
      momentum_buffer_(tensors.size()),
      exp_avg_(tensors.size()),
      exp_avg_sq_(tensors.size()) {
  for (const auto& info : tensors) hidden_.push_back(is_hidden_matrix(info));
}

void MuonRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) {
  ++step_;
  const double adam_lr = lr * options_.adam_lr_ratio;
  const double bias_correction1 = 1.0 - std::pow(options_.adam_beta1, static_cast<double>(step_));
  const double bias_correction2 = 1.0 - std::pow(options_.adam_beta2, static_cast<double>(step_));
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    const at::Tensor& g = grads[i];
    if (hidden_[i]) {
      if (!momentum_buffer_[i].defined()) momentum_buffer_[i] = at::zeros_like(p);
      at::Tensor& m = momentum_buffer_[i];
      m.lerp_(g, 1.0 - options_.momentum);
      at::Tensor update = options_.nesterov ? g.lerp(m, options_.momentum) : m;
      at::Tensor orthogonal = newton_schulz_orthogonalize(update.reshape({p.size(0), -1}), options_.ns_steps);
      // As the reference, the aspect ratio of the tensor's last two dimensions (1 for square
      // convolution kernels).
      const double ratio = static_cast<double>(p.size(-2)) / static_cast<double>(p.size(-1));
      if (options_.weight_decay != 0.0) p.mul_(1.0 - lr * options_.weight_decay);
      p.add_(orthogonal.view(p.sizes()), -lr * std::sqrt(std::max(1.0, ratio)));
    } else {
      if (!exp_avg_[i].defined()) {
        exp_avg_[i] = at::zeros_like(p);
        exp_avg_sq_[i] = at::zeros_like(p);
      }
      exp_avg_[i].lerp_(g, 1.0 - options_.adam_beta1);
      exp_avg_sq_[i].lerp_(g.square(), 1.0 - options_.adam_beta2);
      at::Tensor denominator = (exp_avg_sq_[i] / bias_correction2).sqrt_().add_(options_.adam_eps);
      if (options_.weight_decay != 0.0) p.mul_(1.0 - adam_lr * options_.weight_decay);
      p.add_((exp_avg_[i] / bias_correction1).div_(denominator), -adam_lr);
    }
  }
}

NamedTensors MuonRule::state() const {
  NamedTensors out;
  out.emplace_back("step", at::scalar_tensor(step_, at::kLong));
  append_tensor_list(out, "momentum_buffer", momentum_buffer_);
  append_tensor_list(out, "exp_avg", exp_avg_);
  append_tensor_list(out, "exp_avg_sq", exp_avg_sq_);
  return out;
}

void MuonRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    if (key == "step") {
      step_ = value.item<int64_t>();
    } else if (!read_tensor_list(key, value, "momentum_buffer", momentum_buffer_) &&
               !read_tensor_list(key, value, "exp_avg", exp_avg_) &&
               !read_tensor_list(key, value, "exp_avg_sq", exp_avg_sq_)) {
      throw InputError("unknown optimizer state entry '" + key + "'");
    }
  }
}

TensorwiseRecipe muon_recipe() {
  TensorwiseRecipe r = builtin_recipe("muon");
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t /*step_hint*/) {
    MuonOptions o;
    o.momentum = hp.get("momentum");
    o.nesterov = hp.get("nesterov") != 0.0;
    o.ns_steps = static_cast<int64_t>(hp.get("ns_steps"));
    const double lr = hp.get("learning_rate");
    o.adam_lr_ratio = lr > 0.0 ? hp.get("adam_learning_rate") / lr : 0.0;
    o.adam_beta1 = 1.0 - hp.get("adam_one_minus_beta1");
    o.adam_beta2 = hp.get("adam_beta2");
    o.weight_decay = hp.get("weight_decay");
    return std::make_unique<MuonRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
