#include "algorithms/sam.h"

#include <ATen/ATen.h>

#include "algorithms/device_scalars.h"
#include "algorithms/gradient_computer.h"
#include "catalog/algorithm_infos.h"
#include "core/error.h"

namespace pacer {

at::Tensor sam_ascend(at::Tensor& params, const at::Tensor& grads, const SamOptions& options) {
  at::Tensor saved = params.clone();
  at::Tensor direction = options.adaptive ? params.abs() * grads : grads;
  if (scalars_stay_on_device(params)) {  // the same scale as a 0-dim tensor: no host sync
    const at::Tensor scale = options.rho / (direction.norm() + 1e-12);
    if (options.adaptive) {
      params.add_(params.square().mul_(grads).mul_(scale));
    } else {
      params.add_(grads * scale);
    }
    return saved;
  }
  const double scale = options.rho / (direction.norm().item<double>() + 1e-12);
  if (options.adaptive) {
    params.addcmul_(params.square(), grads, scale);  // uses the saved values: square() is computed first
  } else {
    params.add_(grads, scale);
  }
  return saved;
}

std::string SamAlgorithm::description() const { return builtin_algorithm(name()).description; }

std::vector<HyperparameterSpec> SamAlgorithm::hyperparameter_specs() const {
  return builtin_algorithm(name()).info().hyperparameters;  // catalog/algorithm_infos.cpp
}

LearningRateSchedule SamAlgorithm::make_schedule(const Hyperparameters& hp, const WorkloadSpec& w) const {
  const int64_t warmup = static_cast<int64_t>(hp.get("warmup_factor") * static_cast<double>(w.step_hint));
  return LearningRateSchedule::warmup_cosine(hp.get("learning_rate"), warmup, w.step_hint);
}

void SamAlgorithm::configure(const Hyperparameters& hp) {
  sam_.rho = hp.get("rho");
  sam_.adaptive = hp.get("adaptive") != 0.0;
  adam_.beta1 = 1.0 - hp.get("one_minus_beta1");
  adam_.beta2 = hp.get("beta2");
  adam_.weight_decay = hp.get("weight_decay");
  adam_.variant = AdamVariant::adamw;
  state_ = AdamState{};
}

UpdateResult SamAlgorithm::update(const Workload& workload, Network& network, const Batch& batch,
                                  const StepContext& context) {
  const LossSettings loss_settings{dropout_rate_, label_smoothing_};
  at::Tensor loss = step_gradients(context, workload, network, batch, loss_settings);
  at::Tensor saved;
  {
    at::NoGradGuard no_grad;
    saved = sam_ascend(flat_.values(), flat_.grads(), sam_);
  }
  step_gradients(context, workload, network, batch, loss_settings);  // at the perturbed point
  at::NoGradGuard no_grad;
  flat_.values().copy_(saved);
  at::Tensor grad_norm = clip_grad_norm_if(flat_.grads(), grad_clip_);
  apply_update(flat_.values(), flat_.grads(), learning_rate_at(context.step));
  return {loss, false, grad_norm};
}

void SamAlgorithm::apply_update(at::Tensor& params, const at::Tensor& grads, double lr) {
  adam_.lr = lr;
  adam_step(params, grads, state_, adam_);
}

NamedTensors SamAlgorithm::state() const {
  NamedTensors out;
  out.emplace_back("params", flat_.values().clone());
  append_adam_state(out, state_);
  return out;
}

void SamAlgorithm::load_state(const NamedTensors& state) {
  for (const auto& [key, tensor] : state) {
    if (key == "params") {
      at::NoGradGuard no_grad;
      flat_.values().copy_(tensor);
    } else if (!read_adam_state(key, tensor, state_)) {
      throw InputError("sam: unknown optimizer state entry '" + key + "'");
    }
  }
}

}  // namespace pacer
