#include "models/vision_transformer.h"

#include <ATen/ATen.h>

#include <string>

#include "core/error.h"

namespace pacer {

VisionTransformer::VisionTransformer(const VisionTransformerOptions& o) : options_(o) {
  if (o.image_size % o.patch != 0) throw Error("VisionTransformer: image size must be a multiple of the patch size");
  const int64_t side = o.image_size / o.patch;
  tokens_ = side * side;
  const int64_t dim = o.block.dim;
  // Registration order fixes parameters() order; param_types() follows it.
  position_ = register_parameter("position", at::randn({1, tokens_, dim}) * 0.02);
  patch_embed_ = register_module("patch_embed", torch::nn::Linear(o.channels * o.patch * o.patch, dim));
  for (int64_t i = 0; i < o.depth; ++i)
    blocks_.push_back(register_module("block" + std::to_string(i), std::make_shared<TransformerBlock>(o.block)));
  if (!o.block.post_norm) final_norm_ = register_module("final_norm", std::make_shared<Norm>(dim, o.block.norm));
  head_ = register_module("head", torch::nn::Linear(dim, o.num_classes));
}

at::Tensor VisionTransformer::forward(const at::Tensor& inputs, double dropout_rate) {
  const int64_t n = inputs.size(0), c = options_.channels, p = options_.patch;
  const int64_t side = options_.image_size / p;
  // [N, C, side*p, side*p] -> [N, side*side, C*p*p]
  at::Tensor patches = inputs.reshape({n, c, side, p, side, p}).permute({0, 2, 4, 1, 3, 5}).reshape({n, tokens_, c * p * p});
  at::Tensor x = patch_embed_->forward(patches) + position_;
  for (auto& block : blocks_) x = block->forward(x, dropout_rate, is_training());
  if (final_norm_) x = final_norm_->forward(x);
  x = x.mean(1);
  return head_->forward(x);
}

std::vector<ParamType> VisionTransformer::param_types() const {
  std::vector<ParamType> types{ParamType::embedding, ParamType::weight, ParamType::bias};
  for (const auto& block : blocks_) block->append_param_types(types);
  if (final_norm_) final_norm_->append_param_types(types);
  types.insert(types.end(), {ParamType::weight, ParamType::bias});
  return types;
}

}  // namespace pacer
