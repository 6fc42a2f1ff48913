#pragma once
// What a tuning worker is given and what it reports (run/tuning_worker.h runs it): plain data, so
// that the use-cases that plan tuning runs and boards (tune/tune_request.h, board_request.h) and
// the CLI's worker processes describe workers without the training layer.
//
//   pacer::WorkerOptions options;
//   options.out_dir = "runs/tune";  // reference layout: study_<k>/<workload>_libtorch/trial_<i>/
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "catalog/checkpoint_policy.h"
#include "core/clock.h"
#include "core/progress.h"
#include "store/study_store.h"
#include "tune/race_bounds.h"

namespace pacer {

struct WorkerOptions {
  std::string out_dir;          // empty: the store only
  bool experiment_folders = false;  // out_dir/<experiment>/study_<k>/...: studies of several experiments
  double lease_sec = 60.0;      // a trial whose worker stops renewing is re-run after this long
  double heartbeat_sec = 10.0;  // renewal period (well under the lease)
  double poll_sec = 2.0;        // wait between looks when other workers hold the last trials
  // false: return as soon as no trial of the studies can be claimed, leaving the ones other
  // workers hold to them (a board moves on to its next phase instead of waiting).
  bool wait_for_others = true;
  const std::atomic<bool>* stop_requested = nullptr;
  Progress* progress = nullptr; // per-trial lines (and the trial's own progress on a terminal)
  std::string label;            // prefix of log lines, e.g. "worker 2"
  // Checkpoints in each trial's folder (needs out_dir): a trial re-run after its worker died
  // resumes from its checkpoint instead of starting over (the worker sets resume per trial).
  CheckpointPolicy checkpoints;
  // Racing (external-tuning studies only): a trial stops once it can no longer become its study's
  // best (run/racing.h, stop_when_outraced), by the bound the study's finished trials set in
  // the store, which every worker reads at each eval. Scores and best trials are unchanged.
  bool race = false;
  // With race and race_cutoff: also stop a trial past AlgoPerf's 4x cut-off of the fastest time
  // that the other experiments in the store (tune/race_bounds.h) and these fixed times (boards
  // given with --against) set on its workload; any ruleset. Null: the store's experiments only.
  // Off by default: AlgoPerf's score is unchanged by it, but the pace (score/pace.h) is not (a
  // cut trial might have reached before its budget, a cost below 1 instead of above).
  bool race_cutoff = false;
  std::shared_ptr<const RaceBounds> race_bounds;
  // The program that runs an untrusted algorithm's trial (a Python submission, a plugin) in a
  // process of its own (tune/contained_trial.h): the CLI sets its own executable. Empty: every
  // trial runs in this process.
  std::string trial_process;
  double trial_limit_sec = 0.0;  // wall-clock limit of such a process; 0: 4 x the trial's budget + 120 s
  int trial_process_threads = 1; // its intra-op threads: the worker's own count
  // Tests: the clock each trial is timed by (e.g. one that makes times deterministic); empty:
  // the trial spec's clock.
  std::function<std::unique_ptr<Clock>()> make_trial_clock;
};

struct WorkerReport {
  int64_t trials_run = 0;        // finished by this worker (complete, diverged or failed)
  int64_t trials_raced = 0;      // of those, stopped by racing
  int64_t leases_lost = 0;       // trials taken over by another worker while this one ran them
  int64_t evals_recorded = 0;
  double trial_seconds = 0.0;    // wall time inside the trial runner
  double store_seconds = 0.0;    // wall time in store calls: claims, heartbeats, evals, results
  int64_t store_calls = 0;
  bool interrupted = false;      // stopped by stop_requested before the studies finished
};

// Error once it has lost the lease of this many trials in a row (see lost leases in run/tuning_worker.cpp).
constexpr int kLeasesLostInARowLimit = 3;

// The reference layout folder of a trial: <out>/study_<k>/<workload>_libtorch/trial_<i>.
std::string trial_folder(const std::string& out_dir, const StudyRecord& study, int64_t trial_index,
                         bool experiment_folder = false);

}  // namespace pacer
