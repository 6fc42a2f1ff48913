#pragma once
// An algorithm whose update takes its own gradient says so itself, by deriving from
// TakesOwnGradient as well: a Python submission's update_params calls loss.backward() on the
// whole batch, which the framework cannot shard over workers and combine (--combine,
// --virtual-workers, several processes), so the trial loop refuses a data-parallel plan for it.
// Internal, not part of the SDK: TrainingAlgorithm's layout (tests/abi/sdk_layout.txt) does not
// change, and a plugin takes its gradient from step_gradients (gradient_computer.h).
//
//   class PythonSubmission : public TrainingAlgorithm, public TakesOwnGradient { ... };
//   if (takes_own_gradient(algorithm) && plan) throw InputError(...);
#include "algorithms/training_algorithm.h"
#include "core/export.h"

namespace pacer {

// Exported: the Python bridge's class derives from it, and the trial loop in the program asks.
class PACER_API TakesOwnGradient {
 public:
  virtual ~TakesOwnGradient() = default;
};

inline bool takes_own_gradient(const TrainingAlgorithm& algorithm) {
  return dynamic_cast<const TakesOwnGradient*>(&algorithm) != nullptr;
}

}  // namespace pacer
