#pragma once
// A small vision transformer, after AlgoPerf's ViT: non-overlapping patches embedded linearly,
// learned position embeddings, transformer blocks, mean pooling over tokens, a final norm and a
// dense classifier. Variants through TransformerBlockOptions (glu, post_norm).
//
//   pacer::VisionTransformerOptions o;          // 28x28 images, 7x7 patches -> 16 tokens
//   auto net = std::make_shared<pacer::VisionTransformer>(o);
//   at::Tensor logits = net->forward(images /* [N,1,28,28] */, 0.0);
#include <torch/nn/modules/linear.h>

#include <memory>
#include <vector>

#include "models/transformer_block.h"

namespace pacer {

struct VisionTransformerOptions {
  int64_t image_size = 28;
  int64_t channels = 1;
  int64_t patch = 7;
  int64_t depth = 3;
  int64_t num_classes = 10;
  TransformerBlockOptions block{.dim = 64, .heads = 4, .mlp_dim = 128};
};

class VisionTransformer : public Network {
 public:
  explicit VisionTransformer(const VisionTransformerOptions& options);
  at::Tensor forward(const at::Tensor& inputs, double dropout_rate) override;
  std::vector<ParamType> param_types() const override;

 private:
  VisionTransformerOptions options_;
  int64_t tokens_ = 0;
  torch::nn::Linear patch_embed_{nullptr};
  at::Tensor position_;
  std::vector<std::shared_ptr<TransformerBlock>> blocks_;
  std::shared_ptr<Norm> final_norm_;
  torch::nn::Linear head_{nullptr};
};

}  // namespace pacer
