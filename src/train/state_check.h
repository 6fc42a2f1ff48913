#pragma once
// The state check: does an algorithm's state() hold everything its updates depend on? A trial
// resumed from a checkpoint (`pacer run --resume`, a tune trial re-run after its worker died)
// restores the algorithm through state() and load_state(). Leave the step counter or a moment out
// of state() and the resumed run silently trains differently; nothing else notices.
//
// Three runs of one trial through run_trial, the checkpoint written to disk and read back:
//   A  uninterrupted, `steps` steps;
//   B  the same, checkpointed after `restore_at` steps, then stopped;
//   C  a fresh instance of the algorithm resumed from B's checkpoint, on to `steps`.
// The parameters after every step past the restore point must match A's. At the first step that
// differs, the update is compared with A's: one common factor points at a missing scalar (a step
// counter: bias correction, warm-up, a schedule), element-wise differences at a missing tensor (a
// moment, an accumulator, a copy of the weights). Besides, state() at the restore point goes
// through load_state() of another fresh instance and back: the entries it drops or changes are
// named, and so are the entries that end up different from A's.
//
//   pacer::StateCheckOptions options;  // 20 steps, resumed at 10
//   options.work_dir = "/tmp/check";   // B's checkpoint and logs
//   pacer::StateCheckReport report = pacer::check_algorithm_state(
//       *workload, [] { return pacer::create_algorithm("adamw"); }, hparams, options);
//   if (!report.passed) std::puts(report.diagnosis.c_str());
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/registry.h"  // AlgorithmFactory
#include "algorithms/training_algorithm.h"
#include "core/hyperparameters.h"
#include "catalog/trial_spec.h"
#include "workloads/workload.h"

namespace pacer {

struct StateCheckOptions {
  int64_t steps = 20;       // the uninterrupted run's length
  int64_t restore_at = 10;  // B's checkpoint: 0 < restore_at < steps
  uint64_t seed = 1;
  std::string work_dir;     // required: B's logs and checkpoint (the caller removes it)
  // What else the runs measure under: device, data folder, workload options. The check sets the
  // step limit, trains past the targets, takes the budget off and evaluates rarely.
  TrialSpec spec;
  // A step's parameters differ when max |A - C| exceeds this fraction of the step's largest
  // update |A(t) - A(t-1)|: a resume is bit-exact on one machine, so any real gap is far above it.
  double tolerance = 1e-4;
};

// How the first differing update after the restore relates to the uninterrupted run's.
enum class UpdateDifference {
  none,        // no step differs
  scaled,      // the resumed update is the uninterrupted one times one common factor
  elementwise  // it differs element by element
};

struct StateCheckReport {
  bool passed = false;
  int64_t steps = 0, restore_at = 0;
  std::vector<std::string> entries;       // state()'s entries at the restore point ("exp_avg (4 tensors)")
  std::vector<std::string> not_restored;  // "exp_avg.1: dropped by load_state" / "...: changed by load_state"
  std::optional<int64_t> first_differing_step;  // 1-based: the first step after the restore whose parameters differ
  double max_difference = 0.0;            // max |A - C| over the parameters at that step
  double update_size = 0.0;               // max |A(t) - A(t-1)| at that step
  UpdateDifference difference = UpdateDifference::none;
  double scale = 1.0;                     // when scaled: resumed update / uninterrupted update
  std::vector<std::string> drifted;       // state() entries that differ from A's after `steps` steps
  std::string resume_error;               // the resumed run failed (e.g. load_state threw)
  std::string diagnosis;                  // what the findings mean, in sentences
};

// `make_algorithm` must return a fresh instance on every call (three are needed besides A's).
// `hparams`: the point to run, or nullopt for self-tuning. InputError when the options are
// impossible or the uninterrupted run does not get through `steps` steps (it diverged or failed:
// choose hyperparameters that train).
StateCheckReport check_algorithm_state(Workload& workload, const AlgorithmFactory& make_algorithm,
                                       const std::optional<Hyperparameters>& hparams, const StateCheckOptions& options);

}  // namespace pacer
