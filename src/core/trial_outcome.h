#pragma once
// How a trial ended, without torch: the one trial record of the project. The trial loop produces
// it (a TrialResult is a TrialOutcome plus its evals and labels, catalog/trial_result.h), the study
// store keeps it (TrialRecord::result) and returns it to the board, the summaries, target setting,
// scaling studies and the analysis, which read it as is.
//
//   const pacer::TrialOutcome& o = result;             // after run_trial
//   store.finish_trial(trial.id, owner, o);
//   if (o.time_to_target) std::printf("%s in %g s\n", pacer::to_string(o.status), *o.time_to_target);
#include <cstdint>
#include <optional>
#include <string>

#include "core/stop_reason.h"

namespace pacer {

enum class TrialStatus {
  reached,      // the validation target was reached within the budget
  not_reached,  // the run ended (budget, step limit, algorithm) without reaching it
  stopped,      // racing stopped it without reaching: it could no longer change any score
  diverged,     // non-finite loss or parameters before reaching the target
  failed,       // an error stopped the run
  interrupted,  // stopped from outside before it ended (Ctrl-C, a signal, a lost lease): no result
};
const char* to_string(TrialStatus status);
// The text to_string writes back; nullopt for anything else (a damaged or foreign store).
std::optional<TrialStatus> parse_trial_status(const std::string& text);

struct TrialOutcome {
  TrialStatus status = TrialStatus::failed;
  StopReason stop_reason = StopReason::error;  // why it ended (core/stop_reason.h)
  std::string message;      // details for diverged and failed trials
  int64_t steps = 0;
  double submission_time = 0.0, eval_time = 0.0, total_duration = 0.0;  // accumulated, seconds
  // Scoring semantics: the first eval whose validation metric reaches the target.
  std::optional<double> time_to_target;
  std::optional<int64_t> steps_to_target, eval_index_to_target;  // eval index 0-based
  std::optional<double> best_validation;
  // The intra-op threads it ran with (on the cpu clock, N threads advance the clock about N times
  // as fast); 0: not recorded (stores from before 2026-11-28).
  int threads = 0;
  // The device it ran on, resolved (cpu, cuda:0: never auto); empty: not recorded (stores from
  // before 2026-11-29). Target setting names it where it says how a step was timed.
  std::string device;
};

}  // namespace pacer
