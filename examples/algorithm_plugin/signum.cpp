// Signum (Bernstein et al., 2018, "signSGD: compressed optimisation for non-convex problems"):
// SGD that steps by the sign of a momentum average, with decoupled weight decay, under a linear
// warmup + cosine schedule. A complete Pacer training algorithm built out of tree as a plugin.
//
//   m_t = beta * m_{t-1} + (1 - beta) * g_t
//   p_t = p_{t-1} * (1 - lr_t * weight_decay) - lr_t * sign(m_t)
#include <pacer/algorithm.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

namespace {

class Signum : public pacer::TrainingAlgorithm {
 public:
  std::string name() const override { return "signum"; }
  std::string description() const override {
    return "sign of the momentum average (signSGD with momentum), decoupled weight decay, warmup + cosine";
  }
  std::vector<pacer::HyperparameterSpec> hyperparameter_specs() const override {
    // By name, not by position: no range end is excluded by accident.
    return {
        pacer::hyperparameter("learning_rate").defaults_to(1e-3).in(1e-6, 1.0).describe("peak learning rate"),
        pacer::hyperparameter("beta").defaults_to(0.9).in(0.0, 0.9999).describe("momentum of the averaged gradient"),
        pacer::hyperparameter("weight_decay").defaults_to(0.0).in(0.0, 1.0).describe("decoupled weight decay"),
        pacer::hyperparameter("warmup_factor")
            .defaults_to(0.05)
            .in(0.0, 0.5)
            .describe("linear warmup, as a fraction of the step hint"),
    };
  }

  void init_optimizer_state(const pacer::Workload& workload, pacer::Network& network,
                            const pacer::Hyperparameters* hparams, uint64_t /*seed*/) override {
    // Under self-tuning no hyperparameters are given: use the defaults.
    const pacer::Hyperparameters hp =
        pacer::resolve_hyperparameters(hyperparameter_specs(), hparams ? *hparams : pacer::Hyperparameters{}, name());
    beta_ = hp.get("beta");
    weight_decay_ = hp.get("weight_decay");
    const int64_t step_hint = workload.spec().step_hint;
    schedule_ = pacer::LearningRateSchedule::warmup_cosine(
        hp.get("learning_rate"), static_cast<int64_t>(hp.get("warmup_factor") * static_cast<double>(step_hint)),
        step_hint);
    flat_ = pacer::FlatParameters(network);  // one buffer: each step is a few whole-model ops
    momentum_ = at::zeros_like(flat_.values());
  }

  pacer::UpdateResult update(const pacer::Workload& workload, pacer::Network& network, const pacer::Batch& batch,
                             const pacer::StepContext& context) override {
    // The framework's gradient: with --combine / --virtual-workers / processes it is combined.
    at::Tensor loss = pacer::step_gradients(context, workload, network, batch, {});
    at::NoGradGuard no_grad;
    const double lr = schedule_.at(context.step);
    momentum_.mul_(beta_).add_(flat_.grads(), 1.0 - beta_);
    if (weight_decay_ > 0.0) flat_.values().mul_(1.0 - lr * weight_decay_);
    flat_.values().add_(momentum_.sign(), -lr);
    return {loss, false};
  }

  // Only what the update depends on beyond the network: Pacer's checkpoint holds the network's
  // parameters already (flat_ is a view of them).
  pacer::NamedTensors state() const override { return {{"momentum", momentum_.clone()}}; }
  void load_state(const pacer::NamedTensors& state) override {
    for (const auto& [key, value] : state) {
      if (key == "momentum") momentum_.copy_(value);
      else if (key == "params") continue;  // earlier versions saved a copy of the parameters
      else throw pacer::InputError("signum: unknown state entry '" + key + "'");
    }
  }

 private:
  double beta_ = 0.9, weight_decay_ = 0.0;
  pacer::LearningRateSchedule schedule_;
  pacer::FlatParameters flat_;
  at::Tensor momentum_;
};

}  // namespace

PACER_PLUGIN(PACER_ALGORITHM("signum", Signum))
