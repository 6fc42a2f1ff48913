#pragma once
// Image classification on Fashion-MNIST with a network chosen by the concrete workload:
// cross-entropy loss with label smoothing and example weights; metrics accuracy and loss.
#include "data/fashion_mnist.h"
#include "workloads/in_memory_workload.h"

namespace pacer {

class FashionMnistWorkload : public InMemoryWorkload {
 public:
  // eval_batch_size: examples per forward pass in evals; the fastest size depends on the network
  // (bench/speed/eval_batch_size.py measures it).
  FashionMnistWorkload(WorkloadSpec spec, NetworkFactory factory, int64_t eval_batch_size = kEvalBatchSize);

  void load(const WorkloadContext& context) override;
  LossOutput loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const at::Tensor& weights,
                     double label_smoothing) const override;
  Metrics evaluate(Network& network, EvalSplit split) const override;

  static constexpr int64_t kTrainEvalExamples = 10000;
  // fmnist_cnn's three-split eval, 2 threads: 6.2 s at 500, 5.8 s at 1000, 6.2 s at 1500 (bench/speed/eval_speed.sh).
  static constexpr int64_t kEvalBatchSize = 1000;

 private:
  int64_t eval_batch_size_;
};

}  // namespace pacer
