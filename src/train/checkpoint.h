#pragma once
// A trial's checkpoint on disk, enough to continue it with the same metrics as if it had never
// stopped: the network's parameters and buffers (the model state), the algorithm's state, the
// batch stream's position, the accumulated clocks, the goals reached, the evals so far and the
// number of resumes. The per-step seeds derive from (trial seed, step), so no generator state is
// needed. Written atomically: tensors to a new file, then state.json (renamed into place) naming
// it, then the older tensor file is removed, so a kill at any point leaves a complete checkpoint.
//
//   OUT/checkpoint/state.json        step, position, clocks, goals, evals, what it belongs to
//   OUT/checkpoint/tensors_<step>.pt parameters, buffers, algorithm state (LibTorch archive)
//
//   pacer::save_checkpoint(dir, state, *network, algorithm);
//   pacer::CheckpointState restored = pacer::load_checkpoint(dir, *network, algorithm, expected);
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/training_algorithm.h"
#include "models/network.h"
#include "workloads/metrics.h"

namespace pacer {

struct CheckpointState {
  // What it belongs to: a resume of another trial is refused.
  std::string workload, algorithm;
  uint64_t seed = 0;
  int64_t batch_size = 0;
  // Where the trial was.
  int64_t step = 0;
  int64_t batches_consumed = 0;
  double accumulated_submission_time = 0.0, accumulated_eval_time = 0.0, accumulated_logging_time = 0.0;
  double total_duration = 0.0;
  bool validation_goal_reached = false, test_goal_reached = false;
  int64_t preemption_count = 0;  // resumes before this checkpoint was written
  std::vector<EvalRecord> evals;
};

bool checkpoint_exists(const std::string& dir);

void save_checkpoint(const std::string& dir, const CheckpointState& state, Network& network,
                     const TrainingAlgorithm& algorithm);

// Restores the network and the algorithm (already initialized as for a fresh start) and returns
// where the trial was. InputError naming the file when it is missing, corrupt, or belongs to
// another trial (workload, algorithm, seed or batch size differ from `expected`'s).
CheckpointState load_checkpoint(const std::string& dir, Network& network, TrainingAlgorithm& algorithm,
                                const CheckpointState& expected);

}  // namespace pacer
