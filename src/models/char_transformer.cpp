#include "models/char_transformer.h"

#include <ATen/ATen.h>

#include <string>

#include "core/error.h"

namespace pacer {

CharTransformer::CharTransformer(const CharTransformerOptions& o) : options_(o) {
  if (!o.block.causal) throw Error("CharTransformer: a language model needs causal blocks");
  const int64_t dim = o.block.dim;
  embedding_ = register_parameter("embedding", at::randn({o.vocab, dim}) * 0.02);
  position_ = register_parameter("position", at::randn({o.context, dim}) * 0.02);
  for (int64_t i = 0; i < o.depth; ++i)
    blocks_.push_back(register_module("block" + std::to_string(i), std::make_shared<TransformerBlock>(o.block)));
  final_norm_ = register_module("final_norm", std::make_shared<Norm>(dim, o.block.norm));
  head_ = register_module("head", torch::nn::Linear(dim, o.vocab));
}

at::Tensor CharTransformer::forward(const at::Tensor& inputs, double dropout_rate) {
  const int64_t t = inputs.size(1);
  if (t > options_.context)
    throw Error("CharTransformer: sequence of " + std::to_string(t) + " bytes exceeds the context of " +
                std::to_string(options_.context));
  at::Tensor x = at::embedding(embedding_, inputs) + position_.narrow(0, 0, t);
  for (auto& block : blocks_) x = block->forward(x, dropout_rate, is_training());
  return head_->forward(final_norm_->forward(x));
}

std::vector<ParamType> CharTransformer::param_types() const {
  std::vector<ParamType> types{ParamType::embedding, ParamType::embedding};
  for (const auto& block : blocks_) block->append_param_types(types);
  final_norm_->append_param_types(types);
  types.insert(types.end(), {ParamType::weight, ParamType::bias});
  return types;
}

}  // namespace pacer
