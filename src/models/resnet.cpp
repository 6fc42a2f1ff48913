#include "models/resnet.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <string>

#include "core/error.h"

namespace pacer {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

torch::nn::BatchNorm2d batch_norm(int64_t channels, double momentum) {
  return torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(channels).momentum(momentum).eps(1e-5));
}

}  // namespace

ResNet::ResNet(const ResNetOptions& o) : options_(o) {
  if (o.widths.empty() || o.blocks_per_stage < 1) throw Error("ResNet: needs at least one stage and one block");
  auto add_conv = [&](const std::string& name, torch::nn::Conv2d c) {
    types_.push_back(ParamType::conv_weight);
    return register_module(name, c);
  };
  auto add_bn = [&](const std::string& name, torch::nn::BatchNorm2d b) {
    types_.push_back(ParamType::batch_norm_scale);
    types_.push_back(ParamType::batch_norm_bias);
    return register_module(name, b);
  };
  stem_ = add_conv("stem", conv(o.in_channels, o.widths[0], 3, o.stem_stride));
  stem_bn_ = add_bn("stem_bn", batch_norm(o.widths[0], o.bn_momentum));
  int64_t in = o.widths[0];
  for (size_t stage = 0; stage < o.widths.size(); ++stage) {
    for (int64_t b = 0; b < o.blocks_per_stage; ++b) {
      const int64_t out = o.widths[stage];
      const int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
      const std::string prefix = "stage" + std::to_string(stage) + "_block" + std::to_string(b) + "_";
      Block block;
      block.conv1 = add_conv(prefix + "conv1", conv(in, out, 3, stride));
      block.bn1 = add_bn(prefix + "bn1", batch_norm(out, o.bn_momentum));
      block.conv2 = add_conv(prefix + "conv2", conv(out, out, 3, 1));
      block.bn2 = add_bn(prefix + "bn2", batch_norm(out, o.bn_momentum));
      if (stride != 1 || in != out) {
        block.projection = add_conv(prefix + "projection", conv(in, out, 1, stride));
        block.projection_bn = add_bn(prefix + "projection_bn", batch_norm(out, o.bn_momentum));
      }
      {
        at::NoGradGuard no_grad;
        block.bn2->weight.fill_(o.last_bn_scale_init);
      }
      blocks_.push_back(block);
      in = out;
    }
  }
  head_ = register_module("head", torch::nn::Linear(in, o.num_classes));
  types_.push_back(ParamType::weight);
  types_.push_back(ParamType::bias);
}

at::Tensor ResNet::block_forward(Block& block, const at::Tensor& x) {
  at::Tensor y = apply_activation(options_.activation, block.bn1->forward(block.conv1->forward(x)));
  y = block.bn2->forward(block.conv2->forward(y));
  at::Tensor shortcut = block.projection ? block.projection_bn->forward(block.projection->forward(x)) : x;
  return apply_activation(options_.activation, y + shortcut);
}

at::Tensor ResNet::forward(const at::Tensor& inputs, double dropout_rate) {
  at::Tensor x = apply_activation(options_.activation, stem_bn_->forward(stem_->forward(inputs)));
  for (Block& block : blocks_) x = block_forward(block, x);
  x = x.mean({2, 3});
  if (dropout_rate > 0.0 && is_training()) x = at::dropout(x, dropout_rate, /*train=*/true);
  return head_->forward(x);
}

std::vector<ParamType> ResNet::param_types() const { return types_; }

}  // namespace pacer
