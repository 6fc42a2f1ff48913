#pragma once
// `pacer scale` as a library call. A ScaleRequest says what the user asks (workload, algorithms,
// batch sizes, the step budget, the goal, combiners, eval spacing); plan_scale checks all of it
// and turns it into one single-study sweep per series and batch size, with nothing written. The
// caller plans the sweeps into a store, runs a tuning worker over them, and reads the result back
// with read_scaling_study (scale/scaling_study.h).
//
//   pacer::ScaleRequest request;
//   request.workload = "fmnist_mlp";
//   request.algorithms = {"nadamw"};
//   request.batch_sizes = "64:1024";
//   request.max_steps = 2000;
//   const pacer::ScalePlan plan = pacer::plan_scale(request, pacer::training_set_size);   // InputError naming the culprit
//   pacer::StudyStore store("runs/scale.db");
//   const auto studies = pacer::plan_sweeps(store, plan.sweeps);
//   pacer::run_tuning_worker(store.path(), studies, {});
//   const auto report = pacer::read_scaling_study(store, studies, plan.goal, {0.8, 0.2});
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scale/scaling_study.h"
#include "tune/sweep.h"

namespace pacer {

struct ScaleRequest {
  std::string workload;
  std::vector<std::string> algorithms;  // names or plugin libraries, one series each
  std::string batch_sizes;              // "LO:HI" (powers of two) or "32,100,1000"
  int64_t trials = 8;                   // quasi-random trials per batch size
  std::vector<std::string> spaces;      // one per algorithm; default: spaces/<algorithm>.json
  std::optional<double> goal;           // default: the workload's validation target
  std::string metric;                   // default: validation/<the target metric>
  int64_t max_steps = 0;                // the step budget, or:
  double epochs = 0.0;                  // epochs at the smallest batch size
  int64_t evals = 20;                   // per trial
  std::string eval_spacing = "linear";  // or "log": geometric
  bool all_splits = false;              // evaluate every split, not only the goal's
  int noise_scale = 0;                  // shards of the gradient noise scale probe; 0: none
  std::vector<std::string> combines;    // data-parallel combiners, one series each
  int virtual_workers = 1;
  // Examples per virtual worker, fixed over the batch sizes (the Adasum paper's "examples before
  // communication"): batch size b runs b / worker_batch workers. 0: --virtual-workers at every size.
  int64_t worker_batch = 0;
  std::string adasum_mode = "gradient";  // or "delta"
  uint64_t seed = 0, sampler_seed = 0;
  std::string name_prefix;
  double perfect = 0.8, maximal = 0.2;  // efficiency thresholds of the regimes
  std::string device = "auto", data_dir;
};

struct ScalePlan {
  std::vector<std::string> algorithms;  // resolved
  std::vector<int64_t> batch_sizes;     // ascending
  std::vector<std::string> combines;    // {""}: no combiner
  int64_t budget = 0;                   // steps per trial
  TrainingGoal goal;
  std::vector<std::string> warnings;    // what the spaces' reader tolerated
  std::vector<SweepSpec> sweeps;

  // "pacer scale: fmnist_mlp, 1 algorithm(s) x 5 batch sizes x 8 trials, 2000 steps each at most, goal ..."
  std::string headline(const ScaleRequest& request) const;
};

// "16:4096": the powers of two from 16 to 4096; "32,100,1000": that list, sorted, without repeats.
// InputError naming --batch-sizes.
std::vector<int64_t> parse_batch_sizes(const std::string& text);

// Validated before any store exists: names, counts, thresholds, the goal's metric and value, batch
// sizes the training set can fill (it loads the workload's data) and that split into the shards
// asked for, the spaces. InputError naming the culprit.
// How many training examples a workload has: loading it is the training layer's (the caller passes
// workloads/training_set_size.h's training_set_size). Asked once everything else is checked.
using TrainingSetSize =
    std::function<int64_t(const std::string& workload, const std::string& data_dir, const std::string& device)>;
ScalePlan plan_scale(const ScaleRequest& request, const TrainingSetSize& training_set_size);

}  // namespace pacer
