#include "algorithms/adam_family.h"

#include <ATen/ATen.h>

#include <utility>

#include "catalog/algorithm_infos.h"
#include "core/error.h"

namespace pacer {

std::string AdamFamilyAlgorithm::name() const {
  switch (variant_) {
    case AdamVariant::adam: return "adam";
    case AdamVariant::adamw: return "adamw";
    case AdamVariant::nadamw: return "nadamw";
  }
  return "adam";
}

std::string AdamFamilyAlgorithm::description() const { return builtin_algorithm(name()).description; }

std::vector<HyperparameterSpec> AdamFamilyAlgorithm::hyperparameter_specs() const {
  return builtin_algorithm(name()).info().hyperparameters;  // catalog/algorithm_infos.cpp
}

LearningRateSchedule AdamFamilyAlgorithm::make_schedule(const Hyperparameters& hp, const WorkloadSpec& w) const {
  const int64_t warmup = static_cast<int64_t>(hp.get("warmup_factor") * static_cast<double>(w.step_hint));
  return LearningRateSchedule::warmup_cosine(hp.get("learning_rate"), warmup, w.step_hint);
}

void AdamFamilyAlgorithm::configure(const Hyperparameters& hp) {
  options_.beta1 = 1.0 - hp.get("one_minus_beta1");
  options_.beta2 = hp.get("beta2");
  options_.weight_decay = hp.get("weight_decay");
  options_.variant = variant_;
  state_ = AdamState{};
}

void AdamFamilyAlgorithm::apply_update(at::Tensor& params, const at::Tensor& grads, double lr) {
  options_.lr = lr;
  adam_step(params, grads, state_, options_);
}

NamedTensors AdamFamilyAlgorithm::state() const {
  NamedTensors out;
  out.emplace_back("params", flat_.values().clone());
  append_adam_state(out, state_);
  return out;
}

void AdamFamilyAlgorithm::load_state(const NamedTensors& state) {
  for (const auto& [key, tensor] : state) {
    if (key == "params") {
      at::NoGradGuard no_grad;
      flat_.values().copy_(tensor);
    } else if (!read_adam_state(key, tensor, state_)) {
      throw InputError(name() + ": unknown optimizer state entry '" + key + "'");
    }
  }
}

}  // namespace pacer
