#pragma once
// The read-only view of the trial runner's state that a training algorithm receives (AlgoPerf's
// train_state and eval_results).
#include <cstdint>
#include <vector>

#include "core/eval_record.h"
#include "core/export.h"

namespace pacer {

class GradientComputer;  // algorithms/gradient_computer.h

struct PACER_API RunnerState {
  int64_t step = 0;  // steps completed so far
  double accumulated_submission_time = 0.0;
  double accumulated_eval_time = 0.0;
  double accumulated_logging_time = 0.0;
  double time_budget = 0.0;      // seconds of submission time allowed
  double last_eval_time = 0.0;   // clock reading when the last eval ended
  bool validation_target_reached = false;
  bool test_target_reached = false;
  std::vector<EvalRecord> evals;
  double time_remaining() const { return time_budget - accumulated_submission_time; }
};

// What an algorithm gets on each timed call.
struct PACER_API StepContext {
  int64_t step = 0;        // 0-based index of the step being taken (AlgoPerf global_step)
  uint64_t step_seed = 0;  // derived from (trial seed, step): reproducible per-step randomness
  const RunnerState* state = nullptr;
  // The framework's gradient (combined over data-parallel workers); use it through
  // step_gradients() in algorithms/gradient_computer.h. Null outside a trial.
  GradientComputer* gradients = nullptr;
};

}  // namespace pacer
