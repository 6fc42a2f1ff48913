#pragma once
// An optimizer update rule that works per parameter tensor, with its shape: the state-of-the-art
// baselines need it (Shampoo's Kronecker factors, Muon's orthogonalized matrices, LAMB's
// per-tensor trust ratio, Adafactor's row and column statistics), where the first-generation
// rules of update_rules.h run on one flat buffer. Call under at::NoGradGuard.
//
//   pacer::LionRule rule(pacer::LionOptions{}, pacer::describe_tensors(params, types));
//   for (int64_t step = 0; step < 100; ++step) {
//     ...compute grads...
//     rule.step(params, grads, /*lr=*/1e-4);
//   }
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "algorithms/named_tensors.h"
#include "core/export.h"
#include "models/network.h"

namespace pacer {

// What a rule may know about a parameter tensor besides its values.
struct PACER_API TensorInfo {
  std::vector<int64_t> shape;
  ParamType type = ParamType::weight;
  bool is_output_head = false;  // the last 2-D weight of the network (its output layer)
};

// Shapes and types of `params`; the last tensor of type weight with 2 dimensions is marked as the
// output head (Muon leaves it to AdamW, as its reference does).
PACER_API std::vector<TensorInfo> describe_tensors(const std::vector<at::Tensor>& params, const std::vector<ParamType>& types);

class PACER_API TensorRule {
 public:
  virtual ~TensorRule() = default;
  // One update of every tensor of `params` (in place) from `grads` (same order and shapes) with
  // learning rate `lr`. The rule may modify `grads`.
  virtual void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) = 0;
  // Moves the parameters to the point to evaluate (schedule-free's x), and back to the point the
  // gradients are taken at before the next step; the identity for most rules.
  virtual void to_eval_point(const std::vector<at::Tensor>& /*params*/) {}
  virtual void to_train_point(const std::vector<at::Tensor>& /*params*/) {}
  virtual NamedTensors state() const = 0;
  // InputError naming the entry on an unknown key.
  virtual void load_state(const NamedTensors& state) = 0;
};

}  // namespace pacer
