#pragma once
// A small U-Net for image reconstruction, after AlgoPerf's fastMRI model: at each level two
// [3x3 conv -> norm -> activation (-> dropout)] layers; 2x2 average pooling down; 2x2 transposed
// convolutions up, concatenated with the skip connection; a 1x1 convolution to one channel.
// Norm: instance norm without parameters (the reference), or layer norm over channels and
// pixels with a scale and bias per channel (AlgoPerf's fastmri_layernorm variant).
// Activation: leaky ReLU 0.2 (the reference) or tanh (the fastmri_tanh variant).
//
//   auto net = std::make_shared<pacer::UNet>(pacer::UNetOptions{});
//   at::Tensor image = net->forward(zero_filled /* [N,1,28,28] */, 0.0);  // [N,1,28,28]
#include <torch/nn/modules/conv.h>

#include <vector>

#include "models/activation.h"
#include "models/network.h"

namespace pacer {

enum class UNetNorm { instance_norm, layer_norm };

struct UNetOptions {
  int64_t in_channels = 1;
  int64_t out_channels = 1;
  std::vector<int64_t> channels = {8, 16, 32};  // per level; the last is the bottleneck (28 -> 14 -> 7)
  Activation activation = Activation::leaky_relu;
  UNetNorm norm = UNetNorm::instance_norm;
};

class UNet : public Network {
 public:
  explicit UNet(const UNetOptions& options);
  at::Tensor forward(const at::Tensor& inputs, double dropout_rate) override;
  std::vector<ParamType> param_types() const override;

 private:
  struct ConvLayer {
    torch::nn::Conv2d conv{nullptr};
    at::Tensor scale, bias;  // layer norm only
  };
  ConvLayer make_layer(const std::string& name, int64_t in, int64_t out);
  at::Tensor layer_forward(ConvLayer& layer, const at::Tensor& x, double dropout_rate);
  at::Tensor pair_forward(size_t first, const at::Tensor& x, double dropout_rate);

  UNetOptions options_;
  std::vector<ConvLayer> layers_;                  // pairs: down levels, bottleneck, up levels
  std::vector<torch::nn::ConvTranspose2d> ups_;    // one per up level
  torch::nn::Conv2d output_{nullptr};
  std::vector<ParamType> types_;
};

}  // namespace pacer
