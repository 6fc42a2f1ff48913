#include "algorithms/shampoo.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "algorithms/builtin_recipe.h"
#include "algorithms/symmetric_eigh.h"
#include "algorithms/device_scalars.h"
#include "core/error.h"

namespace pacer {
namespace {

// g contracted with itself over every dimension but `dim`: [n, n].
at::Tensor self_contraction(const at::Tensor& g, int64_t dim) {
  std::vector<int64_t> others;
  for (int64_t d = 0; d < g.dim(); ++d) {
    if (d != dim) others.push_back(d);
  }
  return at::tensordot(g, g, others, others);
}

// x multiplied along each dimension j by the (symmetric) matrix mats[j].
at::Tensor precondition(at::Tensor x, const std::vector<at::Tensor>& mats) {
  if (mats.size() == 2) return at::matmul(at::matmul(mats[0], x), mats[1]);
  for (int64_t j = 0; j < static_cast<int64_t>(mats.size()); ++j) {
    x = at::movedim(at::tensordot(x, mats[static_cast<size_t>(j)], {j}, {0}), -1, j);
  }
  return x;
}

// (A / bias_correction + eps I)^(-1/root) by eigendecomposition, the spectrum shifted so that its
// minimum is eps when it falls below (the reference's perturbation before computation).
at::Tensor inverse_root(const at::Tensor& factor, double bias_correction, double root, double eps) {
  at::Tensor a = factor / bias_correction + eps * at::eye(factor.size(0), factor.options());
  auto [eigenvalues, eigenvectors] = symmetric_eigh(a);
  if (scalars_stay_on_device(eigenvalues)) {  // the same shift, chosen on the device
    const at::Tensor min_eigenvalue = eigenvalues.min();
    eigenvalues = at::where(min_eigenvalue < eps, (eigenvalues - min_eigenvalue) + eps, eigenvalues);
  } else {
    const double min_eigenvalue = eigenvalues.min().item<double>();
    if (min_eigenvalue < eps) eigenvalues = (eigenvalues - min_eigenvalue) + eps;
  }
  return at::matmul(eigenvectors * eigenvalues.pow(-1.0 / root).unsqueeze(0), eigenvectors.t());
}

}  // namespace

std::vector<int64_t> merge_small_dims(const std::vector<int64_t>& shape, int64_t threshold) {
  std::vector<int64_t> dims;
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
    if (*it != 1) dims.push_back(*it);
  }
  if (dims.empty()) return {1};
  std::vector<int64_t> merged{dims[0]};
  for (size_t i = 1; i < dims.size(); ++i) {
    if (merged.back() * dims[i] <= threshold) {
      merged.back() *= dims[i];
    } else {
      merged.push_back(dims[i]);
    }
  }
  std::reverse(merged.begin(), merged.end());
  return merged;
}

ShampooRule::ShampooRule(ShampooOptions options, const std::vector<TensorInfo>& tensors) : options_(options) {
  if (options_.max_preconditioner_dim < 1) throw InputError("shampoo: max_preconditioner_dim must be >= 1");
  if (options_.precondition_frequency < 1) throw InputError("shampoo: precondition_frequency must be >= 1");
  for (const auto& info : tensors) {
    merged_shapes_.push_back(merge_small_dims(info.shape, options_.merge_dims ? options_.max_preconditioner_dim : 0));
  }
  blocks_.resize(tensors.size());
}

std::vector<at::Tensor> ShampooRule::blocks_of(const at::Tensor& tensor, size_t index) const {
  std::vector<at::Tensor> pieces{tensor.view(merged_shapes_[index])};
  for (int64_t dim = 0; dim < static_cast<int64_t>(merged_shapes_[index].size()); ++dim) {
    std::vector<at::Tensor> next;
    for (const auto& piece : pieces) {
      for (auto& part : at::split(piece, options_.max_preconditioner_dim, dim)) next.push_back(part);
    }
    pieces = std::move(next);
  }
  return pieces;
}

void ShampooRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) {
  ++step_;
  const ShampooOptions& o = options_;
  const double t = static_cast<double>(step_);
  const int64_t start = o.start_preconditioning_step;
  StepScalars s;
  s.refresh = (step_ % o.precondition_frequency == 0 && step_ > start) || step_ == start;
  s.bias_correction2 = (o.use_bias_correction && o.beta2 < 1.0) ? 1.0 - std::pow(o.beta2, t) : 1.0;
  s.bias_correction1 = o.use_bias_correction ? 1.0 - std::pow(o.beta1, t) : 1.0;
  s.graft_bias_correction2 = 1.0 - std::pow(o.grafting_beta2, t);
  for (size_t i = 0; i < params.size(); ++i) {
    const std::vector<at::Tensor> weights = blocks_of(params[i], i);
    const std::vector<at::Tensor> gradients = blocks_of(grads[i].contiguous(), i);
    std::vector<Block>& blocks = blocks_[i];
    if (blocks.size() != weights.size()) allocate(blocks, weights);
    for (size_t b = 0; b < weights.size(); ++b) {
      accumulate(blocks[b], weights[b], gradients[b], s);
      // Writes through the block view into the parameter.
      weights[b].add_(block_direction(blocks[b], weights[b], gradients[b], s), -lr);
    }
  }
}

void ShampooRule::allocate(std::vector<Block>& blocks, const std::vector<at::Tensor>& weights) {
  blocks.assign(weights.size(), Block{});
  for (size_t b = 0; b < weights.size(); ++b) {
    for (int64_t n : weights[b].sizes()) {
      blocks[b].factors.push_back(at::zeros({n, n}, weights[b].options()));
      blocks[b].inverse_roots.push_back(at::eye(n, weights[b].options()));
    }
  }
}

void ShampooRule::accumulate(Block& block, const at::Tensor& w, const at::Tensor& g, const StepScalars& s) const {
  const ShampooOptions& o = options_;
  const int64_t order = g.dim();
  const double factor_decay = o.beta2 != 1.0 ? o.beta2 : 1.0;
  const double factor_weight = o.beta2 != 1.0 ? 1.0 - o.beta2 : 1.0;
  for (int64_t d = 0; d < order; ++d) {
    at::Tensor& factor = block.factors[static_cast<size_t>(d)];
    if (order == 2) {  // one fused GEMM, no temporary: the bulk of Shampoo's per-step cost
      factor.addmm_(d == 0 ? g : g.t(), d == 0 ? g.t() : g, factor_decay, factor_weight);
    } else {
      factor.mul_(factor_decay).add_(self_contraction(g, d), factor_weight);
    }
  }
  if (!o.sgd_grafting) {
    if (!block.graft_exp_avg_sq.defined()) block.graft_exp_avg_sq = at::zeros_like(w);
    block.graft_exp_avg_sq.mul_(o.grafting_beta2).addcmul_(g, g, 1.0 - o.grafting_beta2);
  }
  if (s.refresh) {
    const double root = o.inverse_root_override > 0 ? static_cast<double>(o.inverse_root_override)
                                                     : 2.0 * static_cast<double>(order);
    for (int64_t d = 0; d < order; ++d) {
      block.inverse_roots[static_cast<size_t>(d)] =
          inverse_root(block.factors[static_cast<size_t>(d)], s.bias_correction2, root, o.epsilon);
    }
  }
}

at::Tensor ShampooRule::block_direction(Block& block, const at::Tensor& w, const at::Tensor& g, const StepScalars& s) const {
  const ShampooOptions& o = options_;
  at::Tensor filtered = g;
  if (o.beta1 != 0.0) {
    if (!block.filtered_grad.defined()) block.filtered_grad = at::zeros_like(w);
    block.filtered_grad.lerp_(g, 1.0 - o.beta1);
    filtered = o.nadam ? block.filtered_grad * o.beta1 + g * (1.0 - o.beta1) : block.filtered_grad.clone();
    filtered.div_(s.bias_correction1);
  }
  at::Tensor graft = o.sgd_grafting
                         ? filtered
                         : filtered / (block.graft_exp_avg_sq / s.graft_bias_correction2).sqrt_().add_(o.grafting_epsilon);
  at::Tensor direction;
  if (step_ < o.start_preconditioning_step) {
    direction = graft.clone();
  } else {
    direction = precondition(filtered, block.inverse_roots);
    // Grafting: the preconditioned direction with the grafted method's norm (on a CPU two
    // host syncs per block; on a GPU a 0-dim tensor: algorithms/device_scalars.h).
    if (scalars_stay_on_device(direction)) {
      direction.mul_(graft.norm() / (direction.norm() + 1e-16));
    } else {
      const double scale = graft.norm().item<double>() / (direction.norm().item<double>() + 1e-16);
      direction.mul_(scale);
    }
  }
  if (o.weight_decay != 0.0) direction.add_(w, o.weight_decay);
  if (o.momentum != 0.0) {
    if (!block.momentum.defined()) block.momentum = at::zeros_like(w);
    const double dampening = o.ema_momentum ? 1.0 - o.momentum : 1.0;
    block.momentum.mul_(o.momentum).add_(direction, dampening);
    if (o.nesterov) {
      direction.mul_(dampening).add_(block.momentum, o.momentum);
    } else {
      direction = block.momentum.clone();
    }
  }
  return direction;
}

NamedTensors ShampooRule::state() const {
  NamedTensors out;
  out.emplace_back("step", at::scalar_tensor(step_, at::kLong));
  for (size_t i = 0; i < blocks_.size(); ++i) {
    for (size_t b = 0; b < blocks_[i].size(); ++b) {
      const Block& block = blocks_[i][b];
      const std::string prefix = std::to_string(i) + "." + std::to_string(b) + ".";
      for (size_t d = 0; d < block.factors.size(); ++d) {
        out.emplace_back("factor." + prefix + std::to_string(d), block.factors[d].clone());
        out.emplace_back("inverse_root." + prefix + std::to_string(d), block.inverse_roots[d].clone());
      }
      if (block.filtered_grad.defined()) out.emplace_back("filtered_grad." + prefix + "0", block.filtered_grad.clone());
      if (block.graft_exp_avg_sq.defined())
        out.emplace_back("graft_exp_avg_sq." + prefix + "0", block.graft_exp_avg_sq.clone());
      if (block.momentum.defined()) out.emplace_back("momentum." + prefix + "0", block.momentum.clone());
    }
  }
  return out;
}

void ShampooRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    if (key == "step") {
      step_ = value.item<int64_t>();
      continue;
    }
    // "<kind>.<tensor>.<block>.<dim>"
    const auto dot = key.find('.');
    const std::string kind = key.substr(0, dot);
    size_t tensor = 0, block = 0, dim = 0;
    if (dot == std::string::npos || std::sscanf(key.c_str() + dot + 1, "%zu.%zu.%zu", &tensor, &block, &dim) != 3 ||
        tensor >= blocks_.size()) {
      throw InputError("unknown optimizer state entry '" + key + "'");
    }
    auto& blocks = blocks_[tensor];
    if (blocks.size() <= block) blocks.resize(block + 1);
    Block& b = blocks[block];
    auto slot = [&](std::vector<at::Tensor>& list) -> at::Tensor& {
      if (list.size() <= dim) list.resize(dim + 1);
      return list[dim];
    };
    if (kind == "factor") {
      slot(b.factors) = value.clone();
    } else if (kind == "inverse_root") {
      slot(b.inverse_roots) = value.clone();
    } else if (kind == "filtered_grad") {
      b.filtered_grad = value.clone();
    } else if (kind == "graft_exp_avg_sq") {
      b.graft_exp_avg_sq = value.clone();
    } else if (kind == "momentum") {
      b.momentum = value.clone();
    } else {
      throw InputError("unknown optimizer state entry '" + key + "'");
    }
  }
}

TensorwiseRecipe shampoo_recipe() {
  TensorwiseRecipe r = builtin_recipe("shampoo");
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t /*step_hint*/) {
    ShampooOptions o;
    o.beta1 = 1.0 - hp.get("one_minus_beta1");
    o.beta2 = hp.get("beta2");
    o.grafting_beta2 = o.beta2 < 1.0 ? o.beta2 : 0.999;  // v0.6: Adam grafting with the factors' beta2
    o.epsilon = hp.get("epsilon");
    o.momentum = hp.get("momentum");
    o.nesterov = hp.get("nesterov") != 0.0;
    o.ema_momentum = hp.get("ema_momentum") != 0.0;
    o.nadam = hp.get("nadam") != 0.0;
    o.weight_decay = hp.get("weight_decay");
    o.max_preconditioner_dim = static_cast<int64_t>(hp.get("max_preconditioner_dim"));
    o.precondition_frequency = static_cast<int64_t>(hp.get("precondition_frequency"));
    const auto start = static_cast<int64_t>(hp.get("start_preconditioning_step"));
    o.start_preconditioning_step = start < 0 ? o.precondition_frequency : start;
    o.sgd_grafting = hp.get("sgd_grafting") != 0.0;
    o.grafting_epsilon = hp.get("grafting_epsilon");
    o.inverse_root_override = static_cast<int64_t>(hp.get("inverse_root_override"));
    return std::make_unique<ShampooRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
