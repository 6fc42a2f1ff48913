#pragma once
// What one trial is, however it is started: what it measures, its seed, its results folder, its
// checkpoints and the flag that stops it. `pacer run`'s request (run/run_request.h) and the trial
// loop's options (train/trial_runner.h) are both one, so the request reaches the loop in one
// assignment instead of field by field. Torch-free, header-only.
//
//   pacer::RunRequest request;                    // a TrialSetup, plus what only `pacer run` asks
//   request.seed = 2;
//   request.out_dir = "runs/a";
//   pacer::TrialOptions options;                  // a TrialSetup, plus what only the loop takes
//   options.setup() = request;                    // spec, seed, out_dir, checkpoints, stop flag
#include <atomic>
#include <cstdint>
#include <string>

#include "catalog/checkpoint_policy.h"
#include "catalog/trial_spec.h"

namespace pacer {

struct TrialSetup {
  TrialSpec spec;  // what the trial measures
  uint64_t seed = 0;
  std::string out_dir;  // results folder (AlgoPerf's files, rank 0 only); empty: none written
  CheckpointPolicy checkpoints;  // in out_dir/checkpoint (train/checkpoint.h)
  // Set (e.g. by a Ctrl-C handler) to stop after the current step: the result has stop reason
  // "interrupted" and status interrupted (a tuning worker releases the trial to be re-run).
  const std::atomic<bool>* stop_requested = nullptr;

  // This value as a TrialSetup, for the one assignment between the structs that extend it.
  TrialSetup& setup() { return *this; }
  const TrialSetup& setup() const { return *this; }
};

}  // namespace pacer
