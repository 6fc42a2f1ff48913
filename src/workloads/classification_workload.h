#pragma once
// Image classification on Fashion-MNIST with a network chosen by the concrete workload:
// cross-entropy loss with label smoothing and example weights; metrics accuracy and loss.
#include <functional>

#include "data/fashion_mnist.h"
#include "workloads/workload.h"

namespace pacer {

class FashionMnistWorkload : public Workload {
 public:
  using NetworkFactory = std::function<std::shared_ptr<Network>()>;
  FashionMnistWorkload(WorkloadSpec spec, NetworkFactory factory);

  void load(const WorkloadContext& context) override;
  std::shared_ptr<Network> init_model(uint64_t seed, const c10::Device& device) const override;
  LossOutput loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const at::Tensor& weights,
                     double label_smoothing) const override;
  const TensorDataset& dataset(EvalSplit split) const override;
  Metrics evaluate(Network& network, EvalSplit split) const override;

  static constexpr int64_t kTrainEvalExamples = 10000;
  static constexpr int64_t kEvalBatchSize = 500;  // larger batches thrash the cache in the CNN's convolutions

 private:
  NetworkFactory factory_;
  TensorDataset train_, train_eval_, validation_, test_;
  bool loaded_ = false;
};

}  // namespace pacer
