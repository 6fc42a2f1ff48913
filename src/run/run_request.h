#pragma once
// `pacer run` as a library call: one trial of a workload and an algorithm, written to a results
// folder in AlgoPerf's layout. The request says what the user asks; run_one_trial creates the
// workload and the algorithm (a name, a plugin library or a Python submission), takes the
// processes from the launcher's environment (torchrun's variables: one rank of several gets a
// c10d communicator), locks and prepares --out before any work, and runs the trial. The budget
// multiplier of a self-tuning run is the rules preset's, as in tune and board.
//
//   pacer::RunRequest request;
//   request.workload = "fmnist_mlp";
//   request.algorithm = pacer::algorithm_reference("nadamw");
//   request.point = pacer::Hyperparameters{{"learning_rate", 1e-3}};
//   request.out_dir = "runs/default";
//   const pacer::RunOutcome run = pacer::run_one_trial(request);   // InputError naming the culprit
//   std::cout << pacer::trial_summary(run.result, run.workload, request.out_dir);
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "core/hyperparameters.h"
#include "core/progress.h"
#include "catalog/algorithm_reference.h"
#include "catalog/trial_result.h"
#include "catalog/trial_setup.h"
#include "train/trial_writer.h"
#include "catalog/workload_spec.h"
#include "runtime/busy_machine.h"
#include "score/rules.h"
#include "tune/ruleset.h"

namespace pacer {

// A TrialSetup (catalog/trial_setup.h: spec, seed, out_dir, checkpoints, stop_requested), which
// run_one_trial hands to the trial loop whole, plus what only `pacer run` asks. The spec's budget
// multiplier: budget_multiplier_of below; the checkpoints' resume: existing == resume.
struct RunRequest : TrialSetup {
  std::string workload;   // a registered name (see pacer list)
  AlgorithmReference algorithm;  // a name, a plugin library (./libx.so[:NAME]) or a Python submission
  // Self-tuning: the algorithm gets no point (its own defaults) and the rules' budget multiplier.
  // Said here only: the point below is then not used.
  bool self_tuning = false;
  Hyperparameters point;  // external tuning's point; a name it leaves out takes the algorithm's default
  std::string rules;      // the preset of self-tuning's multiplier; empty: the current
  ExistingResults existing = ExistingResults::refuse;
  // Intra-op threads (runtime/busy_machine.h): a count, or Pacer's choice (0), which on a busy
  // machine (other running tasks take cores) is the cores they leave, and, with clock_when_busy
  // (the CLI sets it when --clock was not given), the cpu clock instead of the wall clock (a
  // wall-clock time there says how busy the machine was). A warning says both. Never when
  // resuming, under OMP_NUM_THREADS or PACER_IGNORE_LOAD.
  ThreadsAsked threads;
  // This process runs only this trial of untrusted code (pacer run's contained copy): on the cpu
  // clock it refuses child processes before the submission loads (core/child_processes.h).
  bool contained_process = false;
  std::string dist_backend = "auto";  // several processes: gloo, nccl or auto (nccl on CUDA devices)
  double dist_timeout_sec = 120.0;
  bool quiet = false;  // no progress (the other ranks are always quiet)
};

// The trial's budget multiplier: the spec's own when it gives one, else the rules' self-tuning
// multiplier under self-tuning (x1.5 under v0.6, x3 under v0.5), else 1. Inline: the light pacer
// sizes a contained copy's time limit with it without linking run/.
inline double budget_multiplier_of(const RunRequest& request) {
  if (request.spec.budget_multiplier) return *request.spec.budget_multiplier;
  if (!request.self_tuning) return 1.0;
  return default_budget_multiplier(Ruleset::self,
                                   rules_preset(request.rules.empty() ? default_rules_name() : request.rules));
}

struct RunOutcome {
  TrialResult result;
  WorkloadSpec workload;
  int rank = 0;  // this process's rank; rank 0 writes the results
};

// InputError for an unknown workload, algorithm or option, a bad point, or a results folder that
// cannot be used, before any training step. A failing trial is a result, not an exception.
RunOutcome run_one_trial(const RunRequest& request);

}  // namespace pacer
