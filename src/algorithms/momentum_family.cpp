#include "algorithms/momentum_family.h"

#include <ATen/ATen.h>

#include <utility>

#include "catalog/algorithm_infos.h"
#include "core/error.h"

namespace pacer {

std::string MomentumFamilyAlgorithm::name() const {
  switch (kind_) {
    case MomentumKind::none: return "sgd";
    case MomentumKind::heavy_ball: return "momentum";
    case MomentumKind::nesterov: return "nesterov";
  }
  return "sgd";
}

std::string MomentumFamilyAlgorithm::description() const { return builtin_algorithm(name()).description; }

std::vector<HyperparameterSpec> MomentumFamilyAlgorithm::hyperparameter_specs() const {
  return builtin_algorithm(name()).info().hyperparameters;  // catalog/algorithm_infos.cpp
}

LearningRateSchedule MomentumFamilyAlgorithm::make_schedule(const Hyperparameters& hp, const WorkloadSpec& w) const {
  const int64_t warmup = static_cast<int64_t>(hp.get("warmup_factor") * static_cast<double>(w.step_hint));
  const int64_t decay = static_cast<int64_t>(static_cast<double>(w.step_hint - warmup) * hp.get("decay_steps_factor"));
  return LearningRateSchedule::warmup_linear_decay(hp.get("learning_rate"), warmup, decay, hp.get("end_factor"));
}

void MomentumFamilyAlgorithm::configure(const Hyperparameters& hp) {
  options_.momentum = kind_ == MomentumKind::none ? 0.0 : 1.0 - hp.get("one_minus_beta1");
  options_.nesterov = kind_ == MomentumKind::nesterov;
  options_.weight_decay = hp.get("weight_decay");
  state_ = SgdState{};
}

void MomentumFamilyAlgorithm::apply_update(at::Tensor& params, const at::Tensor& grads, double lr) {
  options_.lr = lr;
  sgd_step(params, grads, state_, options_);
}

NamedTensors MomentumFamilyAlgorithm::state() const {
  NamedTensors out;
  out.emplace_back("params", flat_.values().clone());
  if (state_.momentum_buffer.defined()) out.emplace_back("momentum_buffer", state_.momentum_buffer.clone());
  return out;
}

void MomentumFamilyAlgorithm::load_state(const NamedTensors& state) {
  for (const auto& [key, tensor] : state) {
    if (key == "params") {
      at::NoGradGuard no_grad;
      flat_.values().copy_(tensor);
    } else if (key == "momentum_buffer") {
      state_.momentum_buffer = tensor.clone();
    } else {
      throw InputError(name() + ": unknown optimizer state entry '" + key + "'");
    }
  }
}

}  // namespace pacer
