#pragma once
// SGD, heavy-ball momentum and Nesterov momentum, as the AlgoPerf baselines run them: L2 weight
// decay added to the gradient, linear warmup, then linear decay to lr*end_factor over
// decay_steps_factor of the remaining step hint, constant afterwards.
//
//   auto momentum = std::make_unique<pacer::MomentumFamilyAlgorithm>(pacer::MomentumKind::heavy_ball);
#include "algorithms/baseline_algorithm.h"
#include "algorithms/update_rules.h"

namespace pacer {

enum class MomentumKind { none, heavy_ball, nesterov };

class MomentumFamilyAlgorithm : public BaselineAlgorithm {
 public:
  explicit MomentumFamilyAlgorithm(MomentumKind kind) : kind_(kind) {}
  std::string name() const override;
  std::string description() const override;
  std::vector<HyperparameterSpec> hyperparameter_specs() const override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 protected:
  LearningRateSchedule make_schedule(const Hyperparameters& hp, const WorkloadSpec& workload) const override;
  void configure(const Hyperparameters& hp) override;
  void apply_update(at::Tensor& params, const at::Tensor& grads, double lr) override;

 private:
  MomentumKind kind_;
  SgdOptions options_;
  SgdState state_;
};

}  // namespace pacer
