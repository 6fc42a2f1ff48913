#pragma once
// One logged eval of a trial, without torch: the step, the clocks and the metrics by name
// ("validation/accuracy"). The one eval record of the project: the trial loop logs it, checkpoints
// carry it, the study store keeps and returns it, and scoring, the study analysis and scaling
// studies read it.
//
//   pacer::EvalRecord e;
//   e.step = 200;
//   e.accumulated_submission_time = 1.9;
//   e.metrics["validation/accuracy"] = 0.88;
//   if (auto acc = pacer::finite_metric(e, "validation/accuracy")) std::printf("%g\n", *acc);
#include <cstdint>
#include <map>
#include <optional>
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

// The metric's value when it was logged and is finite.
PACER_API std::optional<double> finite_metric(const EvalRecord& eval, const std::string& name);

}  // namespace pacer
