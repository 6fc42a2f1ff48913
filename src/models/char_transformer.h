#pragma once
// A byte-level decoder-only transformer language model (AlgoPerf v1.0's LM workload, small):
// byte embeddings plus learned positions, causal transformer blocks, a final norm and a dense
// head over the 256 byte values. Variants through TransformerBlockOptions (glu, rms_norm).
//
//   auto net = std::make_shared<pacer::CharTransformer>(pacer::CharTransformerOptions{});
//   at::Tensor logits = net->forward(bytes /* [N, T] int64 */, 0.0);  // [N, T, 256]
#include <torch/nn/modules/linear.h>

#include <memory>
#include <vector>

#include "models/transformer_block.h"

namespace pacer {

struct CharTransformerOptions {
  int64_t vocab = 256;
  int64_t context = 64;
  int64_t depth = 2;
  TransformerBlockOptions block{.dim = 64, .heads = 4, .mlp_dim = 256, .causal = true};
};

class CharTransformer : public Network {
 public:
  explicit CharTransformer(const CharTransformerOptions& options);
  at::Tensor forward(const at::Tensor& inputs, double dropout_rate) override;
  std::vector<ParamType> param_types() const override;

 private:
  CharTransformerOptions options_;
  at::Tensor embedding_, position_;
  std::vector<std::shared_ptr<TransformerBlock>> blocks_;
  std::shared_ptr<Norm> final_norm_;
  torch::nn::Linear head_{nullptr};
};

}  // namespace pacer
