#pragma once
// One transformer block (multi-head self-attention + MLP), shared by the ViT and the language
// model. Options cover the workload variants: pre- or post-layer-norm, LayerNorm or RMSNorm, a
// plain GELU MLP or a GLU MLP (GELU-gated, as AlgoPerf's glu variants), causal masking.
//
//   pacer::TransformerBlock block(pacer::TransformerBlockOptions{.dim = 64, .heads = 4, .mlp_dim = 128});
//   at::Tensor y = block.forward(x /* [N, T, 64] */, /*dropout_rate=*/0.0, /*training=*/true);
//   std::vector<pacer::ParamType> types = block.param_types();  // in parameters() order
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <vector>

#include "models/network.h"

namespace pacer {

enum class NormKind { layer_norm, rms_norm };

struct TransformerBlockOptions {
  int64_t dim = 64;
  int64_t heads = 4;
  int64_t mlp_dim = 128;
  bool glu = false;        // MLP: gelu(x W_gate) * (x W_up), then W_down
  bool post_norm = false;  // x = norm(x + f(x)) instead of x = x + f(norm(x))
  NormKind norm = NormKind::layer_norm;
  bool causal = false;
};

// LayerNorm (scale and bias) or RMSNorm (scale only) over the last dimension.
class Norm : public torch::nn::Module {
 public:
  Norm(int64_t dim, NormKind kind);
  at::Tensor forward(const at::Tensor& x);
  void append_param_types(std::vector<ParamType>& types) const;

 private:
  NormKind kind_;
  int64_t dim_;
  at::Tensor scale_, bias_;
};

class TransformerBlock : public torch::nn::Module {
 public:
  explicit TransformerBlock(const TransformerBlockOptions& options);
  at::Tensor forward(const at::Tensor& x, double dropout_rate, bool training);
  void append_param_types(std::vector<ParamType>& types) const;

 private:
  at::Tensor attention(const at::Tensor& x);
  at::Tensor mlp(const at::Tensor& x);

  TransformerBlockOptions options_;
  std::shared_ptr<Norm> norm1_, norm2_;
  torch::nn::Linear qkv_{nullptr}, out_{nullptr}, up_{nullptr}, gate_{nullptr}, down_{nullptr};
};

}  // namespace pacer
