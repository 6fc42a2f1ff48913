#pragma once
// Shared machinery of the baselines: the step's gradient of the mean loss from the framework
// (with the dropout rate and label smoothing hyperparameters; combined over data-parallel workers
// by the framework), optional global-norm clipping, a learning-rate schedule, and an update rule
// applied to the flat parameter buffer. Subclasses choose the rule and schedule.
#include "algorithms/schedules.h"
#include "algorithms/training_algorithm.h"
#include "core/export.h"
#include "models/flat_parameters.h"

namespace pacer {

class PACER_API BaselineAlgorithm : public TrainingAlgorithm {
 public:
  void init_optimizer_state(const Workload& workload, Network& network, const Hyperparameters* hparams,
                            uint64_t seed) override;
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override;

  const LearningRateSchedule& schedule() const { return schedule_; }
  const Hyperparameters& hyperparameters() const { return hparams_; }

 protected:
  // Called once from init_optimizer_state with resolved hyperparameters (defaults under self-tuning).
  virtual LearningRateSchedule make_schedule(const Hyperparameters& hp, const WorkloadSpec& workload) const = 0;
  virtual void configure(const Hyperparameters& hp) = 0;
  virtual void apply_update(at::Tensor& params, const at::Tensor& grads, double lr) = 0;
  // The learning rate of the update with 0-based index `step`: the schedule's by default.
  virtual double learning_rate_at(int64_t step) const { return schedule_.at(step); }

  // The hyperparameters every baseline shares.
  static std::vector<HyperparameterSpec> common_specs();

  FlatParameters flat_;
  Hyperparameters hparams_;
  LearningRateSchedule schedule_;
  double label_smoothing_ = 0.0;
  double dropout_rate_ = 0.0;
  double grad_clip_ = 0.0;
};

}  // namespace pacer
