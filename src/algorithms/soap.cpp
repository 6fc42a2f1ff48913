#include "algorithms/soap.h"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdio>

#include "algorithms/builtin_recipe.h"
#include "algorithms/symmetric_eigh.h"
#include "core/error.h"

namespace pacer {

SoapRule::SoapRule(SoapOptions options, const std::vector<TensorInfo>& tensors)
    : options_(options), tensors_(tensors.size()) {
  if (options_.precondition_frequency < 1) throw InputError("soap: precondition_frequency must be >= 1");
  for (size_t i = 0; i < tensors.size(); ++i) tensors_[i].bases.resize(tensors[i].shape.size());
}

// Rotates x into the eigenbases (Q^T along each rotated dimension) or back (Q).
at::Tensor SoapRule::project(const at::Tensor& x, const TensorState& s, bool back) const {
  at::Tensor out = x;
  for (int64_t j = 0; j < static_cast<int64_t>(s.bases.size()); ++j) {
    const at::Tensor& q = s.bases[static_cast<size_t>(j)];
    if (q.defined()) out = at::movedim(at::tensordot(out, q, {j}, {back ? 1 : 0}), -1, j);
  }
  return out;
}

void SoapRule::update_factors(const at::Tensor& g, TensorState& s) const {
  const double shampoo_beta = options_.shampoo_beta >= 0.0 ? options_.shampoo_beta : options_.beta2;
  for (int64_t j = 0; j < static_cast<int64_t>(s.factors.size()); ++j) {
    at::Tensor& factor = s.factors[static_cast<size_t>(j)];
    if (!factor.defined()) continue;
    std::vector<int64_t> others;
    for (int64_t d = 0; d < g.dim(); ++d) {
      if (d != j) others.push_back(d);
    }
    factor.lerp_(at::tensordot(g, g, others, others), 1.0 - shampoo_beta);
  }
}

void SoapRule::step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) {
  const SoapOptions& o = options_;
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    const at::Tensor& g = grads[i];
    TensorState& s = tensors_[i];
    if (!s.has_basis) {
      // First step: the factors and their eigenbases (descending eigenvalues); no update.
      s.exp_avg = at::zeros_like(p);
      s.exp_avg_sq = at::zeros_like(p);
      s.factors.assign(static_cast<size_t>(p.dim()), at::Tensor());
      if (p.dim() >= 2) {
        for (int64_t j = 0; j < p.dim(); ++j) {
          if (p.size(j) <= o.max_precond_dim) s.factors[static_cast<size_t>(j)] = at::zeros({p.size(j), p.size(j)}, p.options());
        }
      }
      update_factors(g, s);
      s.bases.assign(static_cast<size_t>(p.dim()), at::Tensor());
      for (size_t j = 0; j < s.factors.size(); ++j) {
        const at::Tensor& f = s.factors[j];
        if (!f.defined()) continue;
        auto eig = symmetric_eigh(f + 1e-30 * at::eye(f.size(0), f.options()));
        s.bases[j] = std::get<1>(eig).flip({1});
      }
      s.has_basis = true;
      continue;
    }
    at::Tensor rotated = project(g, s, /*back=*/false);
    ++s.step;
    s.exp_avg.mul_(o.beta1).add_(rotated, 1.0 - o.beta1);
    s.exp_avg_sq.mul_(o.beta2).addcmul_(rotated, rotated, 1.0 - o.beta2);
    double step_size = lr;
    if (o.correct_bias) {
      const double t = static_cast<double>(s.step);
      step_size = lr * std::sqrt(1.0 - std::pow(o.beta2, t)) / (1.0 - std::pow(o.beta1, t));
    }
    p.add_(project(s.exp_avg / (s.exp_avg_sq.sqrt() + o.eps), s, /*back=*/true), -step_size);
    if (o.weight_decay > 0.0) p.add_(p, -lr * o.weight_decay);
    // The preconditioner follows the same gradient; the first moment moves with the bases.
    s.exp_avg = project(s.exp_avg, s, /*back=*/true);
    update_factors(g, s);
    if (s.step % o.precondition_frequency == 0) {
      for (int64_t j = 0; j < static_cast<int64_t>(s.factors.size()); ++j) {
        const at::Tensor& f = s.factors[static_cast<size_t>(j)];
        if (!f.defined()) continue;
        at::Tensor& q = s.bases[static_cast<size_t>(j)];
        at::Tensor estimate = at::matmul(at::matmul(q.t(), f), q).diagonal();
        at::Tensor order = at::argsort(estimate, /*dim=*/0, /*descending=*/true);
        s.exp_avg_sq = s.exp_avg_sq.index_select(j, order);
        q = std::get<0>(at::linalg_qr(at::matmul(f, q.index_select(1, order))));
      }
    }
    s.exp_avg = project(s.exp_avg, s, /*back=*/false);
  }
}

NamedTensors SoapRule::state() const {
  NamedTensors out;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const TensorState& s = tensors_[i];
    if (!s.has_basis) continue;
    const std::string index = std::to_string(i);
    out.emplace_back("step." + index, at::scalar_tensor(s.step, at::kLong));
    out.emplace_back("exp_avg." + index, s.exp_avg.clone());
    out.emplace_back("exp_avg_sq." + index, s.exp_avg_sq.clone());
    for (size_t j = 0; j < s.factors.size(); ++j) {
      if (!s.factors[j].defined()) continue;
      out.emplace_back("factor." + index + "." + std::to_string(j), s.factors[j].clone());
      out.emplace_back("basis." + index + "." + std::to_string(j), s.bases[j].clone());
    }
  }
  return out;
}

void SoapRule::load_state(const NamedTensors& state) {
  for (const auto& [key, value] : state) {
    const auto dot = key.find('.');
    const std::string kind = key.substr(0, dot);
    size_t tensor = 0, dim = 0;
    const int fields = dot == std::string::npos ? 0 : std::sscanf(key.c_str() + dot + 1, "%zu.%zu", &tensor, &dim);
    if (fields < 1 || tensor >= tensors_.size()) throw InputError("unknown optimizer state entry '" + key + "'");
    TensorState& s = tensors_[tensor];
    s.has_basis = true;
    auto slot = [&](std::vector<at::Tensor>& list) -> at::Tensor& {
      if (list.size() <= dim) list.resize(dim + 1);
      return list[dim];
    };
    if (kind == "step" && fields == 1) {
      s.step = value.item<int64_t>();
    } else if (kind == "exp_avg" && fields == 1) {
      s.exp_avg = value.clone();
    } else if (kind == "exp_avg_sq" && fields == 1) {
      s.exp_avg_sq = value.clone();
    } else if (kind == "factor" && fields == 2) {
      slot(s.factors) = value.clone();
    } else if (kind == "basis" && fields == 2) {
      slot(s.bases) = value.clone();
    } else {
      throw InputError("unknown optimizer state entry '" + key + "'");
    }
  }
  // Every tensor's lists cover all of its dimensions (undefined where not rotated).
  for (auto& s : tensors_) {
    const size_t dims = std::max(s.factors.size(), s.bases.size());
    s.factors.resize(std::max(dims, s.exp_avg.defined() ? static_cast<size_t>(s.exp_avg.dim()) : dims));
    s.bases.resize(s.factors.size());
  }
}

TensorwiseRecipe soap_recipe() {
  TensorwiseRecipe r = builtin_recipe("soap");
  r.make_rule = [](const Hyperparameters& hp, const std::vector<TensorInfo>& tensors, int64_t /*step_hint*/) {
    SoapOptions o;
    o.beta1 = 1.0 - hp.get("one_minus_beta1");
    o.beta2 = hp.get("beta2");
    o.shampoo_beta = hp.get("shampoo_beta");
    o.eps = hp.get("epsilon");
    o.weight_decay = hp.get("weight_decay");
    o.precondition_frequency = static_cast<int64_t>(hp.get("precondition_frequency"));
    o.max_precond_dim = static_cast<int64_t>(hp.get("max_precond_dim"));
    return std::make_unique<SoapRule>(o, tensors);
  };
  return r;
}

}  // namespace pacer
