#include "models/simple_cnn.h"

#include <ATen/ATen.h>

namespace pacer {

SimpleCnn::SimpleCnn(const SimpleCnnOptions& o) {
  conv1_ = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(o.in_channels, o.conv1_channels, 5).padding(2)));
  conv2_ = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(o.conv1_channels, o.conv2_channels, 5).padding(2)));
  const int64_t side = o.image_size / 4;  // two 2x2 poolings
  dense_ = register_module("dense", torch::nn::Linear(o.conv2_channels * side * side, o.dense_size));
  output_ = register_module("output", torch::nn::Linear(o.dense_size, o.num_classes));
}

at::Tensor SimpleCnn::forward(const at::Tensor& inputs, double dropout_rate) {
  at::Tensor x = at::max_pool2d(at::relu(conv1_->forward(inputs)), {2, 2});
  x = at::max_pool2d(at::relu(conv2_->forward(x)), {2, 2});
  x = at::relu(dense_->forward(x.flatten(1)));
  if (dropout_rate > 0.0 && is_training()) x = at::dropout(x, dropout_rate, /*train=*/true);
  return output_->forward(x);
}

std::vector<ParamType> SimpleCnn::param_types() const {
  return {ParamType::conv_weight, ParamType::bias, ParamType::conv_weight, ParamType::bias,
          ParamType::weight,      ParamType::bias, ParamType::weight,      ParamType::bias};
}

}  // namespace pacer
