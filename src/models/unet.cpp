#include "models/unet.h"

#include <ATen/ATen.h>

#include <string>

#include "core/error.h"

namespace pacer {

UNet::ConvLayer UNet::make_layer(const std::string& name, int64_t in, int64_t out) {
  ConvLayer layer;
  layer.conv = register_module(name, torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1).bias(false)));
  types_.push_back(ParamType::conv_weight);
  if (options_.norm == UNetNorm::layer_norm) {
    layer.scale = register_parameter(name + "_norm_scale", at::ones({out}));
    layer.bias = register_parameter(name + "_norm_bias", at::zeros({out}));
    types_.push_back(ParamType::layer_norm_scale);
    types_.push_back(ParamType::layer_norm_bias);
  }
  return layer;
}

UNet::UNet(const UNetOptions& o) : options_(o) {
  if (o.channels.size() < 2) throw Error("UNet: needs at least one level and a bottleneck");
  // Types are collected in registration order; param_types() reorders them as parameters() does.
  int64_t in = o.in_channels;
  for (size_t level = 0; level < o.channels.size(); ++level) {
    const std::string name = "level" + std::to_string(level);
    layers_.push_back(make_layer(name + "_conv1", in, o.channels[level]));
    layers_.push_back(make_layer(name + "_conv2", o.channels[level], o.channels[level]));
    in = o.channels[level];
  }
  for (size_t level = o.channels.size() - 1; level-- > 0;) {
    const std::string name = "up" + std::to_string(level);
    ups_.push_back(register_module(
        name + "_transpose", torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(in, o.channels[level], 2).stride(2).bias(false))));
    types_.push_back(ParamType::conv_weight);
    layers_.push_back(make_layer(name + "_conv1", 2 * o.channels[level], o.channels[level]));
    layers_.push_back(make_layer(name + "_conv2", o.channels[level], o.channels[level]));
    in = o.channels[level];
  }
  output_ = register_module("output", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, o.out_channels, 1)));
  types_.push_back(ParamType::conv_weight);
  types_.push_back(ParamType::bias);
}

at::Tensor UNet::layer_forward(ConvLayer& layer, const at::Tensor& x, double dropout_rate) {
  at::Tensor y = layer.conv->forward(x);
  if (options_.norm == UNetNorm::instance_norm) {
    y = at::instance_norm(y, {}, {}, {}, {}, /*use_input_stats=*/true, 0.0, 1e-5, /*cudnn_enabled=*/false);
  } else {
    const int64_t c = y.size(1);
    y = at::layer_norm(y, {c, y.size(2), y.size(3)}, {}, {}, 1e-5);
    y = y * layer.scale.view({1, c, 1, 1}) + layer.bias.view({1, c, 1, 1});
  }
  y = apply_activation(options_.activation, y);
  if (dropout_rate > 0.0 && is_training()) y = at::feature_dropout(y, dropout_rate, /*train=*/true);
  return y;
}

at::Tensor UNet::pair_forward(size_t first, const at::Tensor& x, double dropout_rate) {
  return layer_forward(layers_[first + 1], layer_forward(layers_[first], x, dropout_rate), dropout_rate);
}

at::Tensor UNet::forward(const at::Tensor& inputs, double dropout_rate) {
  const size_t levels = options_.channels.size();
  std::vector<at::Tensor> skips;
  at::Tensor x = inputs;
  for (size_t level = 0; level + 1 < levels; ++level) {
    x = pair_forward(2 * level, x, dropout_rate);
    skips.push_back(x);
    x = at::avg_pool2d(x, {2, 2});
  }
  x = pair_forward(2 * (levels - 1), x, dropout_rate);
  for (size_t up = 0; up + 1 < levels; ++up) {
    at::Tensor skip = skips[skips.size() - 1 - up];
    x = ups_[up]->forward(x);
    x = at::cat({x, skip}, 1);
    x = pair_forward(2 * levels + 2 * up, x, dropout_rate);
  }
  return output_->forward(x);
}

std::vector<ParamType> UNet::param_types() const {
  // parameters() lists this module's own parameters (the layer-norm scales and biases, in
  // registration order) before its children's (the convolutions, in registration order).
  std::vector<ParamType> own, children;
  for (ParamType t : types_) {
    (t == ParamType::layer_norm_scale || t == ParamType::layer_norm_bias ? own : children).push_back(t);
  }
  own.insert(own.end(), children.begin(), children.end());
  return own;
}

}  // namespace pacer
