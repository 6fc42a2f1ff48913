#pragma once
// Eval results, without torch: metrics by name ("validation/accuracy") and one logged eval.
#include <cstdint>
#include <map>
#include <string>

#include "core/export.h"

namespace pacer {

using Metrics = std::map<std::string, double>;

struct PACER_API EvalRecord {
  int64_t step = 0;  // steps completed when the eval ran
  double accumulated_submission_time = 0.0;
  double accumulated_eval_time = 0.0;
  double accumulated_logging_time = 0.0;
  double total_duration = 0.0;
  int64_t preemption_count = 0;  // resumes from a checkpoint before this eval (AlgoPerf's column)
  Metrics metrics;  // prefixed by split: "train/loss", "validation/accuracy", "test/num_examples"
};

}  // namespace pacer
