#pragma once
// The "simple CNN" of Shallue et al.'s data-parallelism study: conv 5x5/32 -> max-pool 2 ->
// conv 5x5/64 -> max-pool 2 -> dense 1024 -> dense 10, ReLU activations, "same" padding.
//
//   auto net = std::make_shared<pacer::SimpleCnn>(pacer::SimpleCnnOptions{});
//   at::Tensor logits = net->forward(images /* [N,1,28,28] */, 0.0);
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "models/network.h"

namespace pacer {

struct SimpleCnnOptions {
  int64_t in_channels = 1;
  int64_t image_size = 28;
  int64_t conv1_channels = 32;
  int64_t conv2_channels = 64;
  int64_t dense_size = 1024;
  int64_t num_classes = 10;
};

class SimpleCnn : public Network {
 public:
  explicit SimpleCnn(const SimpleCnnOptions& options);
  at::Tensor forward(const at::Tensor& inputs, double dropout_rate) override;
  std::vector<ParamType> param_types() const override;

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear dense_{nullptr}, output_{nullptr};
};

}  // namespace pacer
