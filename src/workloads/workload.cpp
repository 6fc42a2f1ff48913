#include "workloads/workload.h"

namespace pacer {

const char* to_string(EvalSplit split) {
  switch (split) {
    case EvalSplit::train: return "train";
    case EvalSplit::validation: return "validation";
    case EvalSplit::test: return "test";
  }
  return "unknown";
}

at::Tensor Workload::model_fn(Network& network, const at::Tensor& inputs, ForwardMode mode,
                              double dropout_rate) const {
  const bool training = mode == ForwardMode::train;
  if (network.is_training() != training) network.train(training);
  return network.forward(inputs, dropout_rate);
}

}  // namespace pacer
