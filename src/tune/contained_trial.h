#pragma once
// Untrusted algorithms (a Python submission, a plugin .so) run each trial in a child process of
// this program, so that what the submission does to its process (a segfault, a step that never
// returns, os._exit, a signal handler of its own) ends that trial alone: the tuning worker records
// it as failed with the reason and goes on with the study or board. The child claims nothing: it
// runs the trial the worker claimed, under the worker's lease owner, exactly as the worker runs a
// trial in process (evals streamed into the store, racing, checkpoints, the result recorded).
//
//   if (runs_contained(study.algorithm)) {
//     const pacer::TrialProcessExit exit = pacer::run_trial_process(
//         pacer::trial_process_options(store, trial, study, owner, options), pacer::trial_process_limit_sec(study), &stop);
//   }
#include <atomic>
#include <string>
#include <vector>

#include "core/eval_record.h"
#include "core/process_supervisor.h"
#include "core/trial_outcome.h"
#include "store/study_store.h"
#include "tune/race_bounds.h"

namespace pacer {

struct WorkerOptions;

// A Python submission or a plugin (catalog/plugin_records.h's plugin_of): code Pacer did not
// build runs in the trial.
bool runs_contained(const std::string& algorithm);

// The child's command line: `<options.trial_process> contained-trial --store ... --trial ...` with
// the algorithm's file (to load it there), the worker's settings (threads, lease, heartbeat,
// folders, checkpoints, racing), and PACER_SUPERVISOR_PID so that it stops when the worker dies.
// The worker adds the channel its records come back over (run/trial_channel.h); racing's bounds
// (a board's fixed times included) are the worker's answers there.
ChildProcessOptions trial_process_options(const std::string& store, const TrialRecord& trial,
                                          const StudyRecord& study, const std::string& owner,
                                          const WorkerOptions& options);
// Wall-clock seconds a trial's process may run: `limit_sec` when positive (--trial-limit), else
// 4 x the trial's budget + 120 s. The budget is on the trial's clock and excludes evals, start-up
// and data loading, which this leaves room for.
double trial_process_limit_sec(const StudyRecord& study, double limit_sec = 0.0);

// A child's exit status 2 is bad input only when its main said so (`pacer`'s main calls this where it
// exits 2): it leaves a mark in the file PACER_INPUT_ERROR_MARK names, which run_trial_process
// makes for each child. A submission's os._exit(2) leaves none and fails its trial alone, where it
// used to stop `pacer tune`'s worker, and made `pacer run` exit 2 with no message.
void mark_input_error_for_parent();

struct TrialProcessExit {
  int exit_code = 0;          // 128 + N when killed by signal N
  bool interrupted = false;   // stopped on stop_requested (forwarded as SIGINT; SIGKILL after a grace)
  bool input_error = false;   // exit 2 with the mark: bad input, said by the child
  bool timed_out = false;     // killed at the limit
  std::string reason;         // for a trial the child did not record: what ended its process
};

// Runs the child to its end: forwards stop_requested as SIGINT (SIGKILL kGraceSec later if it
// does not stop), kills it at the limit, then kills whatever it left in its process group (a
// fork of the submission's) and whatever it orphaned, adopted by this process (a daemon that left
// the group: core/orphan_reaper.h).
TrialProcessExit run_trial_process(const ChildProcessOptions& child, double limit_sec,
                                   const std::atomic<bool>* stop_requested, double grace_sec = 10.0);

// A failed trial's outcome from what its process recorded before it ended: its steps and
// submission time so far (the last eval's), the reason as its message.
TrialOutcome failed_outcome(const std::string& reason, const std::vector<EvalRecord>& evals);

}  // namespace pacer
