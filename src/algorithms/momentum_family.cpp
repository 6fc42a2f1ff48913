#include "algorithms/momentum_family.h"

#include <memory>

#include "algorithms/builtin_recipe.h"
#include "algorithms/update_rules.h"
#include "core/error.h"

namespace pacer {
namespace {

// sgd_step on the one flat buffer (the recipe is flat).
class SgdRule final : public TensorRule {
 public:
  explicit SgdRule(const SgdOptions& options) : options_(options) {}

  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override {
    options_.lr = lr;
    at::Tensor flat = params.front();
    sgd_step(flat, grads.front(), state_, options_);
  }
  NamedTensors state() const override {
    NamedTensors out;
    if (state_.momentum_buffer.defined()) out.emplace_back("momentum_buffer", state_.momentum_buffer.clone());
    return out;
  }
  void load_state(const NamedTensors& state) override {
    for (const auto& [key, tensor] : state) {
      if (key != "momentum_buffer") throw InputError("unknown optimizer state entry '" + key + "'");
      state_.momentum_buffer = tensor.clone();
    }
  }

 private:
  SgdOptions options_;
  SgdState state_;
};

enum class Momentum { none, heavy_ball, nesterov };

TensorwiseRecipe momentum_family_recipe(const std::string& name, Momentum kind) {
  TensorwiseRecipe r = builtin_recipe(name);
  r.flat = true;
  r.make_schedule = [](const Hyperparameters& hp, const WorkloadSpec& w) {
    const int64_t warmup = static_cast<int64_t>(hp.get("warmup_factor") * static_cast<double>(w.step_hint));
    const int64_t decay = static_cast<int64_t>(static_cast<double>(w.step_hint - warmup) * hp.get("decay_steps_factor"));
    return LearningRateSchedule::warmup_linear_decay(hp.get("learning_rate"), warmup, decay, hp.get("end_factor"));
  };
  r.transforms = {coupled_weight_decay()};  // L2, before the momentum (torch.optim.SGD's weight_decay)
  r.make_rule = [kind](const Hyperparameters& hp, const std::vector<TensorInfo>& /*tensors*/, int64_t /*step_hint*/) {
    SgdOptions options;
    options.momentum = kind == Momentum::none ? 0.0 : 1.0 - hp.get("one_minus_beta1");
    options.nesterov = kind == Momentum::nesterov;
    return std::make_unique<SgdRule>(options);
  };
  return r;
}

}  // namespace

TensorwiseRecipe sgd_recipe() { return momentum_family_recipe("sgd", Momentum::none); }
TensorwiseRecipe momentum_recipe() { return momentum_family_recipe("momentum", Momentum::heavy_ball); }
TensorwiseRecipe nesterov_recipe() { return momentum_family_recipe("nesterov", Momentum::nesterov); }

}  // namespace pacer
