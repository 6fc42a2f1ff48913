#pragma once
// The one shape of every built-in update rule: the framework's gradient (with the dropout rate
// and label smoothing hyperparameters; combined over data-parallel workers by the framework),
// optionally retaken at another point (SAM's), global-norm clipping, the recipe's transforms
// (weight decay: algorithms/update_transforms.h), then a TensorRule (algorithms/tensor_rule.h)
// over the network's parameter tensors (views into the flat buffers, so data parallelism and
// checkpoints work unchanged), or over the one flat buffer for an element-wise rule (SGD, Adam),
// at the rate of the recipe's learning-rate schedule. Each built-in is a recipe for it; adding an
// optimizer is adding a recipe:
//
//   pacer::register_algorithm("lion", [] { return std::make_unique<pacer::TensorwiseAlgorithm>(pacer::lion_recipe()); });
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/gradient_computer.h"
#include "algorithms/schedules.h"
#include "algorithms/tensor_rule.h"
#include "algorithms/training_algorithm.h"
#include "algorithms/update_transforms.h"
#include "core/export.h"
#include "models/flat_parameters.h"

namespace pacer {

struct PACER_API TensorwiseRecipe {
  std::string name;
  std::string description;
  std::vector<HyperparameterSpec> hyperparameters;  // the rule's own; the common ones are appended
  std::vector<std::pair<std::string, double>> common_defaults;  // overrides of the common ones' defaults
  // Learning-rate schedule: linear warmup over warmup_factor x step hint, then cosine decay to 0
  // at the step hint, or (decay false) constant after the warmup.
  bool cosine_decay = true;
  // Warm up with (k+1)/warmup instead of k/warmup, so the first step has a non-zero rate
  // (schedule-free's own warmup).
  bool warmup_from_first_step = false;
  // Recompute batch-norm statistics at the evaluation point (schedule-free evaluates at x, not at
  // the y the training steps ran at).
  bool recompute_batch_norm_for_eval = false;
  // The rule for resolved hyperparameters, the network's tensors and the workload's step hint.
  std::function<std::unique_ptr<TensorRule>(const Hyperparameters&, const std::vector<TensorInfo>&, int64_t step_hint)>
      make_rule;
  // The learning-rate schedule for resolved hyperparameters and the workload, when the two shapes
  // above do not fit (the SGD family's linear decay to end_factor); empty: those.
  std::function<LearningRateSchedule(const Hyperparameters&, const WorkloadSpec&)> make_schedule;
  // The rule sees one tensor, the whole flat parameter buffer (TensorInfo: its length, type
  // weight), instead of one per parameter tensor: an element-wise rule then runs each of its ops
  // once over the model, as the first-generation baselines always have.
  bool flat = false;
  // Run before the rule, in order, on the flat buffers, after clipping (algorithms/update_transforms.h).
  std::vector<TransformFactory> transforms;
  // Where the step's gradient is taken, when not at the parameters: given the flat parameters and
  // the gradient there, moves the parameters in place to the point to take the gradient at and
  // returns what to restore them to (SAM's ascent); empty: at the parameters, one pass.
  std::function<at::Tensor(at::Tensor& params, const at::Tensor& grads, const Hyperparameters&)> gradient_point;
};

class PACER_API TensorwiseAlgorithm : public TrainingAlgorithm {
 public:
  explicit TensorwiseAlgorithm(TensorwiseRecipe recipe);

  std::string name() const override { return recipe_.name; }
  std::string description() const override { return recipe_.description; }
  std::vector<HyperparameterSpec> hyperparameter_specs() const override;
  void init_optimizer_state(const Workload& workload, Network& network, const Hyperparameters* hparams,
                            uint64_t seed) override;
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override;
  void prepare_for_eval(const Workload& workload, Network& network, const StepContext& context) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

  const LearningRateSchedule& schedule() const { return schedule_; }
  const Hyperparameters& hyperparameters() const { return hparams_; }

 private:
  LearningRateSchedule make_schedule(const WorkloadSpec& workload) const;
  void build_rules();
  double learning_rate_at(int64_t step) const;

  TensorwiseRecipe recipe_;
  Hyperparameters hparams_;  // resolved: the defaults under self-tuning
  LearningRateSchedule schedule_;
  LossSettings loss_settings_;
  FlatParameters flat_;
  std::unique_ptr<GlobalNormClip> clip_;
  std::vector<std::unique_ptr<TensorRule>> transforms_;
  std::unique_ptr<TensorRule> rule_;
  std::vector<at::Tensor> params_, grads_;  // what the rule sees: per-tensor views, or the flat buffers
  std::vector<at::Tensor> recent_inputs_;   // for the batch-norm recomputation
  int64_t step_hint_ = 0;
};

}  // namespace pacer
