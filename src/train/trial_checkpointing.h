#pragma once
// The trial loop's checkpointing, as one part beside its stop rules, observers and rank sync:
// what identifies the trial in a checkpoint (refusing a resume of anything else), restoring
// OUT/checkpoint on --resume, saving it every N steps or T seconds off the submission clock
// (counted as logging time), and OUT/checkpoint_best at each strictly better validation value.
//
//   TrialCheckpointing checkpoints(options, workload.spec(), clock);     // inactive without options
//   checkpoints.configure(identity);                                     // set-up, after validation
//   checkpoints.attach(*network, algorithm, state, grad_norms);          // after the network exists
//   if (const auto* at = checkpoints.restore(max_steps)) ...             // --resume
//   checkpoints.start(now, [&] { return stream->position(); });         // the loop starts
//   checkpoints.maybe_save();   checkpoints.keep_if_best(record);        // in the loop
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/runner_state.h"
#include "algorithms/training_algorithm.h"
#include "core/clock.h"
#include "core/hyperparameters.h"
#include "models/network.h"
#include "train/checkpoint.h"
#include "catalog/checkpoint_policy.h"
#include "catalog/trial_spec.h"
#include "catalog/workload_spec.h"

namespace pacer {

// Everything that decides what a trial computes (spec, ruleset, hyperparameters, budget) as one
// JSON text: a resume with any other value is refused, naming it.
// threads: the intra-op threads, part of the definition on the cpu clock only.
std::string trial_definition(const TrialSpec& spec, const std::optional<Hyperparameters>& resolved, double time_budget,
                             int threads);

class TrialCheckpointing {
 public:
  // Checkpoints in out_dir/checkpoint (and out_dir/checkpoint_best).
  TrialCheckpointing(CheckpointPolicy policy, std::string out_dir, const WorkloadSpec& spec, Clock& clock);

  // Set-up: InputError when checkpoints were asked for without a folder, with several processes,
  // or with delta mode over virtual workers. Inactive when none were asked for.
  void configure(CheckpointState identity, int world_size, bool per_worker_optimizer_state);
  bool active() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  void attach(Network& network, TrainingAlgorithm& algorithm, RunnerState& state, std::vector<double>& grad_norms);
  // --resume with a checkpoint there: the network and the algorithm in place, the loop's state and
  // grad norms; what was restored (null: nothing). InputError for one that cannot be trusted.
  const CheckpointState* restore(int64_t max_steps);
  int64_t preemption_count() const { return preemption_count_; }
  // The loop starts at `now`; `batches_consumed` reads the batch stream's position.
  void start(double now, std::function<int64_t()> batches_consumed);
  // Total duration so far, continuing a restored trial's.
  double total_duration(double now) const { return now - start_; }

  // Off the submission clock (the caller restarts it after this): OUT/checkpoint when due.
  void maybe_save();
  // At an eval, rank 0, within logging time: a strictly better validation value replaces
  // OUT/checkpoint_best.
  void keep_if_best(const EvalRecord& record);

 private:
  CheckpointState snapshot(double now) const;

  CheckpointPolicy policy_;
  std::string out_dir_;
  const WorkloadSpec& spec_;
  Clock& clock_;
  std::string dir_;
  CheckpointState identity_;
  Network* network_ = nullptr;
  TrainingAlgorithm* algorithm_ = nullptr;
  RunnerState* state_ = nullptr;
  std::vector<double>* grad_norms_ = nullptr;
  std::function<int64_t()> batches_consumed_;
  std::optional<CheckpointState> restored_;
  int64_t preemption_count_ = 0, last_step_ = 0;
  double last_time_ = 0.0, start_ = 0.0;
  std::optional<double> best_validation_;
};

}  // namespace pacer
