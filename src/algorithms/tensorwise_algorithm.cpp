#include "algorithms/tensorwise_algorithm.h"

#include <ATen/ATen.h>
#include <torch/nn/modules/batchnorm.h>

#include <utility>

#include "catalog/algorithm_infos.h"
#include "core/error.h"
#include "algorithms/gradient_computer.h"

namespace pacer {
namespace {

// Training batches kept for recomputing batch-norm statistics at the evaluation point.
constexpr size_t kBatchNormRecomputeBatches = 8;

// Every batch-norm layer's running statistics recomputed as plain averages over `inputs`, at the
// network's current parameters; momenta and the training mode are restored afterwards.
void recompute_batch_norm(Network& network, const std::vector<at::Tensor>& inputs) {
  std::vector<std::pair<torch::nn::BatchNorm2dImpl*, c10::optional<double>>> layers;
  for (const auto& module : network.modules(/*include_self=*/false)) {
    if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(module.get())) {
      layers.emplace_back(bn, bn->options.momentum());
    }
  }
  if (layers.empty() || inputs.empty()) return;
  const bool was_training = network.is_training();
  for (auto& [bn, momentum] : layers) {
    bn->reset_running_stats();
    bn->options.momentum(c10::nullopt);  // cumulative average over the batches below
  }
  network.train();
  {
    at::NoGradGuard no_grad;
    for (const auto& x : inputs) network.forward(x, 0.0);
  }
  for (auto& [bn, momentum] : layers) bn->options.momentum(momentum);
  network.train(was_training);
}

}  // namespace

std::vector<TensorInfo> describe_tensors(const std::vector<at::Tensor>& params, const std::vector<ParamType>& types) {
  if (params.size() != types.size()) {
    throw Error("describe_tensors: " + std::to_string(params.size()) + " tensors but " +
                std::to_string(types.size()) + " types");
  }
  std::vector<TensorInfo> infos;
  int64_t head = -1;
  for (size_t i = 0; i < params.size(); ++i) {
    infos.push_back({params[i].sizes().vec(), types[i], false});
    if (types[i] == ParamType::weight && params[i].dim() == 2) head = static_cast<int64_t>(i);
  }
  if (head >= 0) infos[static_cast<size_t>(head)].is_output_head = true;
  return infos;
}

TensorwiseAlgorithm::TensorwiseAlgorithm(TensorwiseRecipe recipe) : recipe_(std::move(recipe)) {
  if (!recipe_.make_rule) throw Error("algorithm '" + recipe_.name + "' has no update rule");
}

std::vector<HyperparameterSpec> TensorwiseAlgorithm::hyperparameter_specs() const {
  std::vector<HyperparameterSpec> specs = recipe_.hyperparameters;
  auto common = common_hyperparameter_specs();
  for (auto& spec : common) {
    for (const auto& [name, value] : recipe_.common_defaults) {
      if (spec.name == name) spec.default_value = value;
    }
  }
  specs.insert(specs.end(), common.begin(), common.end());
  return specs;
}

void TensorwiseAlgorithm::init_optimizer_state(const Workload& workload, Network& network,
                                               const Hyperparameters* hparams, uint64_t /*seed*/) {
  step_hint_ = workload.spec().step_hint;
  // Under self-tuning no hyperparameters are given: the algorithm sets its own (its defaults).
  hparams_ = resolve_hyperparameters(hyperparameter_specs(), hparams ? *hparams : Hyperparameters{}, name());
  flat_ = FlatParameters(network);
  schedule_ = make_schedule(workload.spec());
  loss_settings_ = {hparams_.get_or("dropout_rate", 0.0), hparams_.get_or("label_smoothing", 0.0)};
  build_rules();
}

LearningRateSchedule TensorwiseAlgorithm::make_schedule(const WorkloadSpec& w) const {
  if (recipe_.make_schedule) return recipe_.make_schedule(hparams_, w);
  const int64_t warmup = static_cast<int64_t>(hparams_.get("warmup_factor") * static_cast<double>(w.step_hint));
  if (recipe_.cosine_decay) return LearningRateSchedule::warmup_cosine(hparams_.get("learning_rate"), warmup, w.step_hint);
  return LearningRateSchedule::warmup_linear_decay(hparams_.get("learning_rate"), warmup, 0, 1.0);
}

double TensorwiseAlgorithm::learning_rate_at(int64_t step) const {
  return schedule_.at(recipe_.warmup_from_first_step ? step + 1 : step);
}

void TensorwiseAlgorithm::build_rules() {
  recent_inputs_.clear();
  clip_ = std::make_unique<GlobalNormClip>(hparams_.get_or("grad_clip", 0.0));
  transforms_.clear();
  for (const auto& make_transform : recipe_.transforms) transforms_.push_back(make_transform(hparams_));
  if (recipe_.flat) {
    params_ = {flat_.values()};
    grads_ = {flat_.grads()};
    rule_ = recipe_.make_rule(hparams_, {TensorInfo{flat_.values().sizes().vec(), ParamType::weight, false}}, step_hint_);
    return;
  }
  params_ = flat_.parameters();
  grads_.clear();
  std::vector<ParamType> types;
  for (size_t i = 0; i < params_.size(); ++i) {
    grads_.push_back(params_[i].grad());
    types.push_back(flat_.slices()[i].type);
  }
  rule_ = recipe_.make_rule(hparams_, describe_tensors(params_, types), step_hint_);
}

UpdateResult TensorwiseAlgorithm::update(const Workload& workload, Network& network, const Batch& batch,
                                         const StepContext& context) {
  if (recipe_.recompute_batch_norm_for_eval) {
    if (recent_inputs_.size() == kBatchNormRecomputeBatches) recent_inputs_.erase(recent_inputs_.begin());
    recent_inputs_.push_back(batch.inputs);
  }
  {
    at::NoGradGuard no_grad;
    rule_->to_train_point(params_);  // the gradient is taken at the training point
  }
  at::Tensor loss = step_gradients(context, workload, network, batch, loss_settings_);
  if (recipe_.gradient_point) {
    at::Tensor saved;
    {
      at::NoGradGuard no_grad;
      saved = recipe_.gradient_point(flat_.values(), flat_.grads(), hparams_);
    }
    step_gradients(context, workload, network, batch, loss_settings_);  // at that point, the step's gradient
    at::NoGradGuard no_grad;
    flat_.values().copy_(saved);
  }
  at::NoGradGuard no_grad;
  const double lr = learning_rate_at(context.step);
  const std::vector<at::Tensor> flat_params{flat_.values()}, flat_grads{flat_.grads()};
  clip_->step(flat_params, flat_grads, lr);
  for (auto& transform : transforms_) transform->step(flat_params, flat_grads, lr);
  rule_->step(params_, grads_, lr);
  return {loss, false, clip_->norm()};
}

void TensorwiseAlgorithm::prepare_for_eval(const Workload& /*workload*/, Network& network,
                                           const StepContext& /*context*/) {
  at::NoGradGuard no_grad;
  rule_->to_eval_point(params_);
  if (recipe_.recompute_batch_norm_for_eval) recompute_batch_norm(network, recent_inputs_);
}

NamedTensors TensorwiseAlgorithm::state() const {
  NamedTensors out;
  out.emplace_back("params", flat_.values().clone());
  for (auto& entry : rule_->state()) out.push_back(std::move(entry));
  return out;
}

void TensorwiseAlgorithm::load_state(const NamedTensors& state) {
  NamedTensors rule_state;
  for (const auto& [key, tensor] : state) {
    if (key == "params") {
      at::NoGradGuard no_grad;
      flat_.values().copy_(tensor);
    } else {
      rule_state.emplace_back(key, tensor);
    }
  }
  try {
    rule_->load_state(rule_state);
  } catch (const InputError& e) {
    throw InputError(name() + ": " + e.what());
  }
}

}  // namespace pacer
