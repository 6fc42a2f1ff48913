#pragma once
// Sharpness-Aware Minimization (Foret et al. 2021) as davda54/sam's sam.py, over AdamW: each step
// takes the gradient at w, moves to the nearby worst case w + e (e = rho g / |g|, or, adaptive
// (ASAM), rho w^2 g / | |w| g |), takes the gradient there (the workload's loss is computed twice,
// both through the framework, so data-parallel workers combine both), returns to w and applies
// AdamW with the second gradient.
//
//   at::Tensor saved = pacer::sam_ascend(params, grads, {.rho = 0.05});   // params now at w + e
//   ...gradient at the perturbed point into grads...
//   params.copy_(saved);
//   pacer::adam_step(params, grads, adam_state, adam_options);
#include "algorithms/baseline_algorithm.h"
#include "algorithms/update_rules.h"

namespace pacer {

struct SamOptions {
  double rho = 0.05;
  bool adaptive = false;
};

// Moves the flat `params` to the perturbed point in place; returns a copy of where they were.
at::Tensor sam_ascend(at::Tensor& params, const at::Tensor& grads, const SamOptions& options);

class SamAlgorithm : public BaselineAlgorithm {
 public:
  std::string name() const override { return "sam"; }
  std::string description() const override;
  std::vector<HyperparameterSpec> hyperparameter_specs() const override;
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 protected:
  LearningRateSchedule make_schedule(const Hyperparameters& hp, const WorkloadSpec& workload) const override;
  void configure(const Hyperparameters& hp) override;
  void apply_update(at::Tensor& params, const at::Tensor& grads, double lr) override;

 private:
  SamOptions sam_;
  AdamOptions adam_;
  AdamState state_;
};

}  // namespace pacer
