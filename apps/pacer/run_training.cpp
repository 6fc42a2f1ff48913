// pacer run in pacer-train: one trial of a workload and an algorithm (run/run_request.h), its
// summary and its exit status; under `pacer launch`, one rank of several.
#include <cstdio>
#include <optional>
#include <string>

#include "contained_run.h"
#include "interrupt.h"
#include "run_command.h"
#include "train/trial_summary.h"

namespace pacer::cli {
namespace {

// The exit status of a trial: 130 interrupted, 2 when the submission's own code raised, 1 failed.
// Rank 0 prints the summary; the other ranks say how they ended.
int report_trial(const TrialResult& r, const WorkloadSpec& spec, const std::optional<TrainingGoal>& goal,
                 const std::string& out, int rank) {
  const bool interrupted = r.interrupted();
  if (rank == 0) {
    std::fputs(trial_summary(r, spec, out).c_str(), stdout);
    if (goal) {
      const std::string reached = r.stop_reason == StopReason::goal_reached
                                      ? "reached at step " + std::to_string(r.steps)
                                      : std::string("not reached");
      std::printf("goal:                %s %s %g: %s\n", goal->metric.c_str(), goal->higher_is_better ? ">" : "<",
                  goal->value, reached.c_str());
    }
    if (interrupted) {
      std::fprintf(stderr, "pacer: interrupted after %lld steps; what was measured is in the results\n",
                   static_cast<long long>(r.steps));
      return 130;
    }
    if (r.submission_error) {  // the submission's own code: exit 2, as for any bad input
      std::fprintf(stderr, "pacer: error: %s\n", r.message.c_str());
      return 2;
    }
    return r.status == TrialStatus::failed ? 1 : 0;
  }
  if (r.status == TrialStatus::failed && !interrupted) {
    std::fprintf(stderr, "rank %d: failed (%s): %s\n", rank, to_string(r.stop_reason), r.message.c_str());
    return 1;
  }
  std::printf("rank %d: finished after %lld steps (%s); rank 0 reports the results\n", rank,
              static_cast<long long>(r.steps), to_string(r.stop_reason));
  return interrupted ? 130 : 0;
}

}  // namespace

int run_trial_command(RunArgs& a) {
  prepare_run(a, /*warn=*/true);
  RunRequest& r = a.request;
  // First Ctrl-C (or one forwarded by `pacer launch`): stop after the current step, on every
  // rank together, and write what was measured. Second: the default action.
  r.stop_requested = &install_interrupt_handler();
  r.threads.clock_when_busy = a.clock_option && a.clock_option->count() == 0;
  if (auto code = run_in_contained_copy(a.argv, r.algorithm, r.out_dir, a.copy_limit_sec, *r.stop_requested))
    return *code;
  r.contained_process = in_contained_copy();
  const RunOutcome run = run_one_trial(r);
  return contained_copy_finished(report_trial(run.result, run.workload, r.spec.goal, r.out_dir, run.rank));
}

}  // namespace pacer::cli
