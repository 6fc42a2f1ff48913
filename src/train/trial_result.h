#pragma once
// Everything one trial produced (torch-free): its outcome (core/trial_outcome.h, what the study
// store keeps), its evals, and what the logs and the CLI print besides.
//
//   pacer::TrialResult r = pacer::run_trial(...);
//   if (r.time_to_target) std::cout << *r.time_to_target << " s\n";
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/eval_record.h"
#include "core/trial_outcome.h"
#include "train/stop_reason.h"
#include "catalog/workload_spec.h"

namespace pacer {

struct TrialResult {
  TrialStatus status = TrialStatus::failed;
  StopReason stop_reason = StopReason::error;
  std::string message;      // details for diverged/failed/interrupted
  bool submission_error = false;  // failed because the algorithm's own code raised (core/error.h)
  std::string workload, algorithm;
  uint64_t seed = 0;
  int64_t batch_size = 0;
  double time_budget = 0.0;
  std::string clock = "wall";  // what submission time is measured by (wall, cpu)
  int threads = 0;             // the intra-op threads it ran with
  int64_t steps = 0;
  double accumulated_submission_time = 0.0;
  double accumulated_eval_time = 0.0;
  double accumulated_logging_time = 0.0;
  double total_duration = 0.0;
  // Scoring semantics (<=, >=) on the logged evals.
  std::optional<double> time_to_target, test_time_to_target;
  std::optional<int64_t> steps_to_target, test_steps_to_target;
  std::optional<int64_t> eval_index_to_target;  // 0-based index of the first eval reaching the target
  std::optional<double> best_validation;
  int64_t best_validation_step = 0;
  std::vector<EvalRecord> evals;

  // Diverged, even after reaching the target (then the status stays "reached").
  bool diverged() const { return stop_reason == StopReason::diverged; }
  bool interrupted() const { return stop_reason == StopReason::interrupted; }

  // What the store keeps of it: the status, the stop reason's name, the clocks, the target fields.
  TrialOutcome outcome() const;
  std::string to_json() const;
};

// Fills the target fields of `result` from its evals by the scoring rule (first eval whose
// validation metric reaches the target with <= or >=), and best_validation.
void compute_targets(const WorkloadSpec& spec, TrialResult& result);

}  // namespace pacer
