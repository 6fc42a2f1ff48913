#include "workloads/classification_workload.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "core/error.h"

namespace pacer {

FashionMnistWorkload::FashionMnistWorkload(WorkloadSpec spec, NetworkFactory factory)
    : Workload(std::move(spec)), factory_(std::move(factory)) {}

void FashionMnistWorkload::load(const WorkloadContext& context) {
  const auto& data = load_fashion_mnist(resolve_data_dir(context.data_dir));
  auto to_device = [&](const TensorDataset& d) {
    return TensorDataset{d.inputs.to(context.device), d.targets.to(context.device)};
  };
  train_ = to_device(data.train);
  train_eval_ = {train_.inputs.narrow(0, 0, kTrainEvalExamples), train_.targets.narrow(0, 0, kTrainEvalExamples)};
  validation_ = to_device(data.validation);
  test_ = to_device(data.test);
  loaded_ = true;
}

std::shared_ptr<Network> FashionMnistWorkload::init_model(uint64_t seed, const c10::Device& device) const {
  // The modules draw their initial values from the global generator.
  at::manual_seed(seed);
  auto network = factory_();
  network->to(device);
  return network;
}

LossOutput FashionMnistWorkload::loss_fn(const at::Tensor& targets, const at::Tensor& outputs,
                                         const at::Tensor& weights, double label_smoothing) const {
  LossOutput out;
  out.per_example = at::cross_entropy_loss(outputs, targets, /*weight=*/{}, at::Reduction::None,
                                           /*ignore_index=*/-100, label_smoothing);
  if (weights.defined()) {
    out.per_example = out.per_example * weights;
    out.summed = out.per_example.sum();
    out.n_valid = weights.sum();
  } else {
    out.summed = out.per_example.sum();
    out.n_valid = at::scalar_tensor(static_cast<double>(targets.size(0)), outputs.options());
  }
  return out;
}

const TensorDataset& FashionMnistWorkload::dataset(EvalSplit split) const {
  if (!loaded_) throw Error(spec().name + ": data not loaded");
  switch (split) {
    case EvalSplit::train: return train_;
    case EvalSplit::validation: return validation_;
    case EvalSplit::test: return test_;
  }
  return train_;
}

Metrics FashionMnistWorkload::evaluate(Network& network, EvalSplit split) const {
  const TensorDataset& data = split == EvalSplit::train ? train_eval_ : dataset(split);
  at::NoGradGuard no_grad;
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (int64_t start = 0; start < data.size(); start += kEvalBatchSize) {
    const int64_t n = std::min(kEvalBatchSize, data.size() - start);
    at::Tensor x = data.inputs.narrow(0, start, n);
    at::Tensor y = data.targets.narrow(0, start, n);
    at::Tensor logits = model_fn(network, x, ForwardMode::eval, 0.0);
    loss_sum += at::cross_entropy_loss(logits, y, {}, at::Reduction::Sum, -100, 0.0).item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  }
  const double n = static_cast<double>(data.size());
  return {{"accuracy", correct / n}, {"loss", loss_sum / n}, {"num_examples", n}};
}

}  // namespace pacer
