#pragma once
// A trial's checkpoint on disk, enough to continue it with the same metrics as if it had never
// stopped: the network's parameters and buffers (the model state), the algorithm's state, the
// batch stream's position, the accumulated clocks, the targets reached, the evals so far and the
// number of resumes. The per-step seeds derive from (trial seed, step), so no generator state is
// needed. Written atomically: tensors to a new file, then state.json (renamed into place) naming
// it, then the older tensor file is removed, so a kill at any point leaves a complete checkpoint.
// A checkpoint cannot lie: state.json records the CRC-32 of the tensor file and of its own text,
// and the whole definition of the trial; a resume refuses a damaged or edited checkpoint, one of
// another trial (naming what differs), and impossible values.
//
//   OUT/checkpoint/state.json        step, position, clocks, targets reached, evals, what it belongs to, checksums
//   OUT/checkpoint/tensors_<step>.pt parameters, buffers, algorithm state (LibTorch archive)
//
//   pacer::save_checkpoint(dir, state, *network, algorithm);
//   pacer::CheckpointState restored = pacer::load_checkpoint(dir, *network, algorithm, expected);
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/runner_state.h"
#include "algorithms/training_algorithm.h"
#include "core/eval_record.h"
#include "models/network.h"

namespace pacer {

struct CheckpointState {
  // What it belongs to: a resume of another trial is refused.
  std::string workload, algorithm;
  uint64_t seed = 0;
  int64_t batch_size = 0;
  // Where the trial was: the runner's state (step, clocks, targets reached, evals; its budget and
  // last eval time are not kept: the resumed run has its own), and what it does not hold.
  RunnerState runner;
  int64_t batches_consumed = 0;
  double total_duration = 0.0;
  int64_t preemption_count = 0;  // resumes before this checkpoint was written
  // The gradient norms of the steps since the last eval: the next eval's train/grad_norm_* are
  // then those of an uninterrupted run when the checkpoint is not on an eval step.
  std::vector<double> grad_norms_since_eval;
  // The trial's whole definition (JSON object: spec, ruleset, hyperparameters, budget): a resume
  // with any other value is refused, naming it. Empty: not compared.
  std::string definition;
  // Written by a Pacer before checksums (no integrity record): restored without the checks.
  bool unverified = false;
};

bool checkpoint_exists(const std::string& dir);

void save_checkpoint(const std::string& dir, const CheckpointState& state, Network& network,
                     const TrainingAlgorithm& algorithm);

// Restores the network and the algorithm (already initialized as for a fresh start) and returns
// where the trial was. InputError naming the file when it is missing, damaged (a checksum
// differs), edited, holds impossible values, or belongs to another trial (workload, algorithm,
// seed, batch size or any part of `expected.definition` differ).
CheckpointState load_checkpoint(const std::string& dir, Network& network, TrainingAlgorithm& algorithm,
                                const CheckpointState& expected);

}  // namespace pacer
