#include "models/transformer_block.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "core/error.h"

namespace pacer {

Norm::Norm(int64_t dim, NormKind kind) : kind_(kind), dim_(dim) {
  scale_ = register_parameter("scale", at::ones({dim}));
  if (kind == NormKind::layer_norm) bias_ = register_parameter("bias", at::zeros({dim}));
}

at::Tensor Norm::forward(const at::Tensor& x) {
  if (kind_ == NormKind::layer_norm) return at::layer_norm(x, {dim_}, scale_, bias_, 1e-5);
  // RMSNorm (Zhang & Sennrich): no centring, no bias.
  return x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + 1e-6) * scale_;
}

void Norm::append_param_types(std::vector<ParamType>& types) const {
  types.push_back(ParamType::layer_norm_scale);
  if (kind_ == NormKind::layer_norm) types.push_back(ParamType::layer_norm_bias);
}

TransformerBlock::TransformerBlock(const TransformerBlockOptions& o) : options_(o) {
  if (o.dim % o.heads != 0) throw Error("TransformerBlock: dim must be a multiple of heads");
  norm1_ = register_module("norm1", std::make_shared<Norm>(o.dim, o.norm));
  qkv_ = register_module("qkv", torch::nn::Linear(o.dim, 3 * o.dim));
  out_ = register_module("out", torch::nn::Linear(o.dim, o.dim));
  norm2_ = register_module("norm2", std::make_shared<Norm>(o.dim, o.norm));
  up_ = register_module("up", torch::nn::Linear(o.dim, o.mlp_dim));
  if (o.glu) gate_ = register_module("gate", torch::nn::Linear(o.dim, o.mlp_dim));
  down_ = register_module("down", torch::nn::Linear(o.mlp_dim, o.dim));
}

at::Tensor TransformerBlock::attention(const at::Tensor& x) {
  const int64_t n = x.size(0), t = x.size(1), h = options_.heads, d = options_.dim / h;
  // [N, T, 3, H, d] -> three [N, H, T, d]
  at::Tensor qkv = qkv_->forward(x).view({n, t, 3, h, d}).permute({2, 0, 3, 1, 4});
  at::Tensor q = qkv[0], k = qkv[1], v = qkv[2];
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(d)));
  if (options_.causal) {
    at::Tensor future = at::ones({t, t}, x.options().dtype(at::kBool)).triu(1);
    scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
  }
  at::Tensor y = at::matmul(at::softmax(scores, -1), v);  // [N, H, T, d]
  return out_->forward(y.transpose(1, 2).reshape({n, t, options_.dim}));
}

at::Tensor TransformerBlock::mlp(const at::Tensor& x) {
  at::Tensor hidden = options_.glu ? at::gelu(gate_->forward(x)) * up_->forward(x) : at::gelu(up_->forward(x));
  return down_->forward(hidden);
}

at::Tensor TransformerBlock::forward(const at::Tensor& x, double dropout_rate, bool training) {
  auto drop = [&](const at::Tensor& y) {
    return dropout_rate > 0.0 && training ? at::dropout(y, dropout_rate, /*train=*/true) : y;
  };
  if (options_.post_norm) {
    at::Tensor y = norm1_->forward(x + drop(attention(x)));
    return norm2_->forward(y + drop(mlp(y)));
  }
  at::Tensor y = x + drop(attention(norm1_->forward(x)));
  return y + drop(mlp(norm2_->forward(y)));
}

void TransformerBlock::append_param_types(std::vector<ParamType>& types) const {
  // parameters() order: own (none), then children in registration order.
  norm1_->append_param_types(types);
  types.insert(types.end(), {ParamType::weight, ParamType::bias, ParamType::weight, ParamType::bias});  // qkv, out
  norm2_->append_param_types(types);
  types.insert(types.end(), {ParamType::weight, ParamType::bias});  // up
  if (options_.glu) types.insert(types.end(), {ParamType::weight, ParamType::bias});
  types.insert(types.end(), {ParamType::weight, ParamType::bias});  // down
}

}  // namespace pacer
