#pragma once
// Multi-layer perceptron: flatten, then [linear -> (layer norm) -> activation -> dropout] per
// hidden layer, then a linear output layer. With no hidden layers it is a linear model.
//
//   auto net = std::make_shared<pacer::Mlp>(pacer::MlpOptions{.input_size = 784, .hidden = {128, 128}, .output_size = 10});
//   at::Tensor logits = net->forward(images, /*dropout_rate=*/0.1);
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "models/activation.h"
#include "models/network.h"

namespace pacer {

struct MlpOptions {
  int64_t input_size = 784;
  std::vector<int64_t> hidden = {128, 128};
  int64_t output_size = 10;
  Activation activation = Activation::relu;
  bool layer_norm = false;
};

class Mlp : public Network {
 public:
  explicit Mlp(const MlpOptions& options);
  at::Tensor forward(const at::Tensor& inputs, double dropout_rate) override;
  std::vector<ParamType> param_types() const override;

 private:
  MlpOptions options_;
  std::vector<torch::nn::Linear> hidden_;
  std::vector<torch::nn::LayerNorm> norms_;
  torch::nn::Linear output_{nullptr};
};

}  // namespace pacer
