#pragma once
// Optimizer state as named tensors (the checkpoint and save/load format of every algorithm), and
// helpers for per-parameter-tensor state, stored as "<name>.<tensor index>".
//
//   pacer::NamedTensors out;
//   pacer::append_tensor_list(out, "exp_avg", exp_avg_);             // exp_avg.0, exp_avg.1, ...
//   if (pacer::read_tensor_list(key, value, "exp_avg", exp_avg_)) continue;
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "core/export.h"

namespace pacer {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// Appends clones of the defined tensors of `tensors` as "<name>.<index>".
PACER_API void append_tensor_list(NamedTensors& out, const std::string& name, const std::vector<at::Tensor>& tensors);
// When `key` is "<name>.<index>", stores a clone of `value` at that index (growing `tensors`) and
// returns true; false when the key belongs to another name. InputError on a malformed index.
PACER_API bool read_tensor_list(const std::string& key, const at::Tensor& value, const std::string& name,
                      std::vector<at::Tensor>& tensors);

}  // namespace pacer
