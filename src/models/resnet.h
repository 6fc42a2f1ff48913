#pragma once
// A small residual network with batch normalization, after AlgoPerf's ImageNet ResNet: a 3x3
// stem, then stages of basic blocks (conv-BN-act-conv-BN, identity or 1x1-projection shortcut),
// the first block of every stage after the first halving the resolution, global average pooling
// and a dense classifier. The batch-norm running statistics are the model state (buffers).
// `last_bn_scale_init` is the initial scale of each block's last batch norm: 0 (the reference's
// default, every block starts as the identity) or 8 for AlgoPerf's large-BN-init variant.
//
//   auto net = std::make_shared<pacer::ResNet>(pacer::ResNetOptions{});
//   net->train();
//   at::Tensor logits = net->forward(images /* [N,1,28,28] */, 0.0);  // updates running stats
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <vector>

#include "models/activation.h"
#include "models/network.h"

namespace pacer {

struct ResNetOptions {
  int64_t in_channels = 1;
  int64_t stem_stride = 2;                 // 28x28 -> 14x14: keeps a CPU step cheap
  std::vector<int64_t> widths = {16, 32, 64};
  int64_t blocks_per_stage = 1;
  int64_t num_classes = 10;
  Activation activation = Activation::relu;
  double last_bn_scale_init = 0.0;
  double bn_momentum = 0.1;                // torch convention: weight of the new batch statistics
};

class ResNet : public Network {
 public:
  explicit ResNet(const ResNetOptions& options);
  at::Tensor forward(const at::Tensor& inputs, double dropout_rate) override;
  std::vector<ParamType> param_types() const override;

 private:
  struct Block {
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, projection{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, projection_bn{nullptr};
  };
  at::Tensor block_forward(Block& block, const at::Tensor& x);

  ResNetOptions options_;
  torch::nn::Conv2d stem_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  std::vector<Block> blocks_;
  torch::nn::Linear head_{nullptr};
  std::vector<ParamType> types_;  // filled while registering, so it follows parameters() order
};

}  // namespace pacer
