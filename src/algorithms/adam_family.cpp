#include "algorithms/adam_family.h"

#include <ATen/ATen.h>

#include <utility>

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

std::string AdamFamilyAlgorithm::description() const {
  switch (variant_) {
    case AdamVariant::adam: return "Adam with L2 weight decay, warmup + cosine decay";
    case AdamVariant::adamw: return "AdamW (decoupled weight decay), warmup + cosine decay (AlgoPerf baseline)";
    case AdamVariant::nadamw: return "NAdamW, warmup + cosine decay (the AlgoPerf reference baseline)";
  }
  return "";
}

std::vector<HyperparameterSpec> AdamFamilyAlgorithm::hyperparameter_specs() const {
  // Defaults: the best point of the fmnist_mlp tuning runs (docs/targets.md).
  std::vector<HyperparameterSpec> specs = {
      {"learning_rate", variant_ == AdamVariant::nadamw ? 0.005 : 0.002, 0.0, 10.0, "peak learning rate"},
      {"one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1", true, false},
      {"beta2", 0.999, 0.0, 1.0, "second-moment decay", false, true},
      {"weight_decay", variant_ == AdamVariant::adam ? 0.0 : 0.01, 0.0, 10.0,
       variant_ == AdamVariant::adam ? "L2 weight decay added to the gradient" : "decoupled weight decay"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
  };
  auto common = common_specs();
  specs.insert(specs.end(), common.begin(), common.end());
  return specs;
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
