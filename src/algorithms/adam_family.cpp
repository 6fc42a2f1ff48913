#include "algorithms/adam_family.h"

#include <memory>

#include "algorithms/builtin_recipe.h"
#include "algorithms/update_rules.h"
#include "core/error.h"

namespace pacer {
namespace {

// adam_step on the one flat buffer (the recipe is flat).
class AdamRule final : public TensorRule {
 public:
  explicit AdamRule(const AdamOptions& options) : options_(options) {}

  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override {
    options_.lr = lr;
    at::Tensor flat = params.front();
    adam_step(flat, grads.front(), state_, options_);
  }
  NamedTensors state() const override {
    NamedTensors out;
    append_adam_state(out, state_);
    return out;
  }
  void load_state(const NamedTensors& state) override {
    for (const auto& [key, tensor] : state) {
      if (!read_adam_state(key, tensor, state_)) throw InputError("unknown optimizer state entry '" + key + "'");
    }
  }

 private:
  AdamOptions options_;
  AdamState state_;
};

}  // namespace

TensorwiseRecipe adam_family_recipe(const std::string& name, AdamVariant variant) {
  TensorwiseRecipe r = builtin_recipe(name);
  r.flat = true;
  // Adam's weight decay is L2 (added to the gradient the moments see); AdamW's and NAdamW's decay
  // the parameters before the step. The rule itself decays nothing (weight_decay 0).
  r.transforms = {variant == AdamVariant::adam ? coupled_weight_decay() : decoupled_weight_decay()};
  r.make_rule = [variant](const Hyperparameters& hp, const std::vector<TensorInfo>& /*tensors*/, int64_t /*step_hint*/) {
    AdamOptions options;
    options.beta1 = 1.0 - hp.get("one_minus_beta1");
    options.beta2 = hp.get("beta2");
    options.variant = variant;
    return std::make_unique<AdamRule>(options);
  };
  return r;  // the schedule: warmup + cosine, the recipe's default
}

TensorwiseRecipe adam_recipe() { return adam_family_recipe("adam", AdamVariant::adam); }
TensorwiseRecipe adamw_recipe() { return adam_family_recipe("adamw", AdamVariant::adamw); }
TensorwiseRecipe nadamw_recipe() { return adam_family_recipe("nadamw", AdamVariant::nadamw); }

}  // namespace pacer
