#include "workloads/workload.h"

#include "core/error.h"

namespace pacer {

const char* to_string(EvalSplit split) {
  switch (split) {
    case EvalSplit::train: return "train";
    case EvalSplit::validation: return "validation";
    case EvalSplit::test: return "test";
  }
  return "unknown";
}

EvalSplit parse_eval_split(const std::string& name) {
  for (EvalSplit split : {EvalSplit::train, EvalSplit::validation, EvalSplit::test}) {
    if (name == to_string(split)) return split;
  }
  throw InputError("unknown eval split '" + name + "' (train, validation, test)");
}

at::Tensor Workload::model_fn(Network& network, const at::Tensor& inputs, ForwardMode mode,
                              double dropout_rate) const {
  const bool training = mode == ForwardMode::train;
  if (network.is_training() != training) network.train(training);
  return network.forward(inputs, dropout_rate);
}

}  // namespace pacer
