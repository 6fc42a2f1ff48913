#pragma once
// One batch of examples. `weights` is undefined unless some examples must count less (or not
// at all, as padding in AlgoPerf's evals).
#include <ATen/core/Tensor.h>

#include "core/export.h"

namespace pacer {

struct PACER_API Batch {
  at::Tensor inputs;
  at::Tensor targets;
  at::Tensor weights;  // optional, shape [batch]
  int64_t size() const { return inputs.defined() ? inputs.size(0) : 0; }
};

}  // namespace pacer
