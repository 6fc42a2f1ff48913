#pragma once
// An in-memory dataset: inputs and targets with the example index as first dimension.
#include <ATen/core/Tensor.h>

#include "core/export.h"

namespace pacer {

struct PACER_API TensorDataset {
  at::Tensor inputs;
  at::Tensor targets;
  int64_t size() const { return inputs.defined() ? inputs.size(0) : 0; }
};

}  // namespace pacer
