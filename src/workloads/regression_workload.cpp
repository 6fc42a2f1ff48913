#include "workloads/regression_workload.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "core/error.h"
#include "models/mlp.h"
#include "runtime/global_generator_lease.h"

namespace pacer {

SyntheticRegressionWorkload::SyntheticRegressionWorkload(WorkloadSpec spec, SyntheticRegressionOptions options)
    : Workload(std::move(spec)), options_(options) {}

void SyntheticRegressionWorkload::load(const WorkloadContext& context) {
  data_ = make_synthetic_regression(options_);
  auto to_device = [&](TensorDataset& d) { d = TensorDataset{d.inputs.to(context.device), d.targets.to(context.device)}; };
  to_device(data_.train);
  to_device(data_.validation);
  to_device(data_.test);
  const int64_t n = std::min(options_.eval_examples, data_.train.size());
  train_eval_ = {data_.train.inputs.narrow(0, 0, n), data_.train.targets.narrow(0, 0, n)};
  loaded_ = true;
}

std::shared_ptr<Network> SyntheticRegressionWorkload::init_model(uint64_t seed, const c10::Device& device) const {
  std::shared_ptr<Mlp> network;
  {
    GlobalGeneratorLease draws(seed);  // the modules' initial weights
    network = std::make_shared<Mlp>(MlpOptions{options_.dim, {}, 1, Activation::relu, false});
  }
  network->to(device);
  return network;
}

LossOutput SyntheticRegressionWorkload::loss_fn(const at::Tensor& targets, const at::Tensor& outputs,
                                                const at::Tensor& weights, double /*label_smoothing*/) const {
  return weighted_loss((outputs - targets).pow(2).sum(1), weights);
}

const TensorDataset& SyntheticRegressionWorkload::dataset(EvalSplit split) const {
  if (!loaded_) throw Error(spec().name + ": data not loaded");
  switch (split) {
    case EvalSplit::train: return data_.train;
    case EvalSplit::validation: return data_.validation;
    case EvalSplit::test: return data_.test;
  }
  return data_.train;
}

Metrics SyntheticRegressionWorkload::evaluate(Network& network, EvalSplit split) const {
  const TensorDataset& data = split == EvalSplit::train ? train_eval_ : dataset(split);
  at::NoGradGuard no_grad;
  at::Tensor out = model_fn(network, data.inputs, ForwardMode::eval, 0.0);
  const double loss = (out - data.targets).pow(2).mean().item<double>();
  return {{"loss", loss}, {"num_examples", static_cast<double>(data.size())}};
}

}  // namespace pacer
