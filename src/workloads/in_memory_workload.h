#pragma once
// A workload whose splits live in memory as tensors and whose network comes from a factory: the
// common part of the Fashion-MNIST, reconstruction and language-model workloads. A subclass's
// load() builds the splits and hands them over with set_splits(); init_model seeds the global
// generator (the modules draw their initial values from it) and builds the network.
//
//   class MyWorkload : public pacer::InMemoryWorkload {
//     void load(const WorkloadContext& c) override { set_splits(train, train.narrow(...), val, test); }
//     LossOutput loss_fn(...) const override;
//     Metrics evaluate(Network& net, EvalSplit split) const override {
//       double loss = 0.0;
//       for_each_eval_batch(net, split, 256, [&](const at::Tensor& out, const at::Tensor& y) { loss += ...; });
//       ...
//     }
//   };
#include <functional>

#include "workloads/workload.h"

namespace pacer {

class InMemoryWorkload : public Workload {
 public:
  using NetworkFactory = std::function<std::shared_ptr<Network>()>;
  InMemoryWorkload(WorkloadSpec spec, NetworkFactory factory);

  std::shared_ptr<Network> init_model(uint64_t seed, const c10::Device& device) const override;
  const TensorDataset& dataset(EvalSplit split) const override;

 protected:
  void set_splits(TensorDataset train, TensorDataset train_eval, TensorDataset validation, TensorDataset test);
  // What an eval of `split` runs on: the train eval subset for `train`, else the split itself.
  const TensorDataset& eval_split(EvalSplit split) const;
  // The eval loop, written once: the network on eval_split(split) in batches of `batch_size`, in
  // eval mode, without gradients; each batch's outputs and targets go to `accumulate`, in order.
  using EvalBatch = std::function<void(const at::Tensor& outputs, const at::Tensor& targets)>;
  void for_each_eval_batch(Network& network, EvalSplit split, int64_t batch_size, const EvalBatch& accumulate) const;

 private:
  NetworkFactory factory_;
  TensorDataset train_, train_eval_, validation_, test_;
  bool loaded_ = false;
};

}  // namespace pacer
