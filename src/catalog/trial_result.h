#pragma once
// Everything one trial produced (torch-free): its outcome (core/trial_outcome.h, what the study
// store keeps: a TrialResult is one, nothing copied), its evals, and what the logs and the CLI print
// besides.
//
//   pacer::TrialResult r = pacer::run_trial(...);
//   if (r.time_to_target) std::cout << *r.time_to_target << " s\n";
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/workload_spec.h"
#include "core/eval_record.h"
#include "core/trial_outcome.h"

namespace pacer {

// A TrialOutcome (what the store keeps: status, stop reason, steps, the clocks, the target fields)
// and what only the run has: its labels, its evals, the test split's target and the logging time.
struct TrialResult : TrialOutcome {
  bool submission_error = false;  // failed because the algorithm's own code raised (core/error.h)
  std::string workload, algorithm;
  uint64_t seed = 0;
  int64_t batch_size = 0;
  double time_budget = 0.0;
  std::string clock = "wall";  // what submission time is measured by (wall, cpu)
  // A contained trial's file restrictions, as its process reported them ("Landlock ABI 7: ...", or
  // that the kernel has none and nothing was restricted); empty: run in process, unrestricted.
  std::string restrictions;
  double logging_time = 0.0;   // accumulated, seconds
  // Scoring semantics (<=, >=) on the logged evals, as the outcome's validation fields.
  std::optional<double> test_time_to_target;
  std::optional<int64_t> test_steps_to_target;
  int64_t best_validation_step = 0;
  std::vector<EvalRecord> evals;

  // Diverged, even after reaching the target (then the status stays "reached").
  bool diverged() const { return stop_reason == StopReason::diverged; }
  bool interrupted() const { return stop_reason == StopReason::interrupted; }

  std::string to_json() const;
};

// Fills the target fields of `result` from its evals by the scoring rule (first eval whose
// validation metric reaches the target with <= or >=), and best_validation.
void compute_targets(const WorkloadSpec& spec, TrialResult& result);

}  // namespace pacer
