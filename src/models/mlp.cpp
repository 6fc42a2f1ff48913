#include "models/mlp.h"

#include <ATen/ATen.h>

namespace pacer {

Mlp::Mlp(const MlpOptions& options) : options_(options) {
  int64_t width = options.input_size;
  for (size_t i = 0; i < options.hidden.size(); ++i) {
    hidden_.push_back(register_module("dense" + std::to_string(i), torch::nn::Linear(width, options.hidden[i])));
    if (options.layer_norm) {
      norms_.push_back(register_module("norm" + std::to_string(i),
                                       torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.hidden[i]}))));
    }
    width = options.hidden[i];
  }
  output_ = register_module("output", torch::nn::Linear(width, options.output_size));
}

at::Tensor Mlp::forward(const at::Tensor& inputs, double dropout_rate) {
  at::Tensor x = inputs.dim() == 2 ? inputs : inputs.flatten(1);
  const bool drop = dropout_rate > 0.0 && is_training();
  for (size_t i = 0; i < hidden_.size(); ++i) {
    x = hidden_[i]->forward(x);
    if (options_.layer_norm) x = norms_[i]->forward(x);
    x = apply_activation(options_.activation, x);
    if (drop) x = at::dropout(x, dropout_rate, /*train=*/true);
  }
  return output_->forward(x);
}

std::vector<ParamType> Mlp::param_types() const {
  std::vector<ParamType> types;
  for (size_t i = 0; i < hidden_.size(); ++i) {
    types.push_back(ParamType::weight);
    types.push_back(ParamType::bias);
    if (options_.layer_norm) {
      types.push_back(ParamType::layer_norm_scale);
      types.push_back(ParamType::layer_norm_bias);
    }
  }
  types.push_back(ParamType::weight);
  types.push_back(ParamType::bias);
  return types;
}

}  // namespace pacer
