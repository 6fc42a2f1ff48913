#include "workloads/classification_workload.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "core/error.h"

namespace pacer {

FashionMnistWorkload::FashionMnistWorkload(WorkloadSpec spec, NetworkFactory factory, int64_t eval_batch_size)
    : InMemoryWorkload(std::move(spec), std::move(factory)), eval_batch_size_(eval_batch_size) {}

void FashionMnistWorkload::load(const WorkloadContext& context) {
  const auto& data = load_fashion_mnist(resolve_data_dir(context.data_dir));
  auto to_device = [&](const TensorDataset& d) {
    return TensorDataset{d.inputs.to(context.device), d.targets.to(context.device)};
  };
  TensorDataset train = to_device(data.train);
  TensorDataset train_eval{train.inputs.narrow(0, 0, kTrainEvalExamples), train.targets.narrow(0, 0, kTrainEvalExamples)};
  set_splits(train, train_eval, to_device(data.validation), to_device(data.test));
}

LossOutput FashionMnistWorkload::loss_fn(const at::Tensor& targets, const at::Tensor& outputs,
                                         const at::Tensor& weights, double label_smoothing) const {
  return weighted_loss(at::cross_entropy_loss(outputs, targets, /*weight=*/{}, at::Reduction::None,
                                             /*ignore_index=*/-100, label_smoothing),
                       weights);
}

Metrics FashionMnistWorkload::evaluate(Network& network, EvalSplit split) const {
  double loss_sum = 0.0;
  int64_t correct = 0;
  for_each_eval_batch(network, split, eval_batch_size_, [&](const at::Tensor& logits, const at::Tensor& y) {
    loss_sum += at::cross_entropy_loss(logits, y, {}, at::Reduction::Sum, -100, 0.0).item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  });
  const double n = static_cast<double>(eval_split(split).size());
  return {{"accuracy", correct / n}, {"loss", loss_sum / n}, {"num_examples", n}};
}

}  // namespace pacer
