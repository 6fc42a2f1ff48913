#pragma once
// Adam, AdamW and NAdamW, as the AlgoPerf baselines run them: linear warmup for warmup_factor of
// the step hint, then cosine decay to 0 at the step hint.
//
//   auto nadamw = std::make_unique<pacer::AdamFamilyAlgorithm>(pacer::AdamVariant::nadamw);
#include "algorithms/baseline_algorithm.h"
#include "algorithms/update_rules.h"

namespace pacer {

class AdamFamilyAlgorithm : public BaselineAlgorithm {
 public:
  explicit AdamFamilyAlgorithm(AdamVariant variant) : variant_(variant) {}
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
  AdamVariant variant_;
  AdamOptions options_;
  AdamState state_;
};

}  // namespace pacer
