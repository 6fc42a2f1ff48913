#include "workloads/in_memory_workload.h"

#include <ATen/ATen.h>

#include "core/error.h"
#include "runtime/global_generator_lease.h"

namespace pacer {

InMemoryWorkload::InMemoryWorkload(WorkloadSpec spec, NetworkFactory factory)
    : Workload(std::move(spec)), factory_(std::move(factory)) {}

std::shared_ptr<Network> InMemoryWorkload::init_model(uint64_t seed, const c10::Device& device) const {
  std::shared_ptr<Network> network;
  {
    GlobalGeneratorLease draws(seed);  // the modules' initial weights
    network = factory_();
  }
  network->to(device);
  return network;
}

void InMemoryWorkload::set_splits(TensorDataset train, TensorDataset train_eval, TensorDataset validation,
                                  TensorDataset test) {
  train_ = std::move(train);
  train_eval_ = std::move(train_eval);
  validation_ = std::move(validation);
  test_ = std::move(test);
  loaded_ = true;
}

const TensorDataset& InMemoryWorkload::dataset(EvalSplit split) const {
  if (!loaded_) throw Error(spec().name + ": data not loaded");
  switch (split) {
    case EvalSplit::train: return train_;
    case EvalSplit::validation: return validation_;
    case EvalSplit::test: return test_;
  }
  return train_;
}

const TensorDataset& InMemoryWorkload::eval_split(EvalSplit split) const {
  if (split == EvalSplit::train) {
    dataset(split);  // the loaded check
    return train_eval_;
  }
  return dataset(split);
}

void InMemoryWorkload::for_each_eval_batch(Network& network, EvalSplit split, int64_t batch_size,
                                           const EvalBatch& accumulate) const {
  const TensorDataset& data = eval_split(split);
  at::NoGradGuard no_grad;
  for (int64_t start = 0; start < data.size(); start += batch_size) {
    const int64_t n = std::min(batch_size, data.size() - start);
    const at::Tensor inputs = data.inputs.narrow(0, start, n);
    accumulate(model_fn(network, inputs, ForwardMode::eval, 0.0), data.targets.narrow(0, start, n));
  }
}

}  // namespace pacer
