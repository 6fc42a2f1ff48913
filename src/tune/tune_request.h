#pragma once
// `pacer tune` as a library call. A TuneRequest says what the user asks (workloads or a suite,
// the algorithm, the ruleset and rules, the space, counts, seeds, the trial settings); plan_tune
// turns it into the sweeps to run and checks everything it can before anything is written, so
// bad input never leaves a store or a log folder behind. The caller then plans the sweeps into a
// store and runs tuning workers over them (tune/sweep.h, run/tuning_worker.h).
//
//   pacer::TuneRequest request;
//   request.workloads = {"fmnist_mlp"};
//   request.algorithm = "nadamw";
//   request.space_file = "spaces/nadamw.json";
//   const pacer::TunePlan plan = pacer::plan_tune(request);   // InputError naming the culprit
//   pacer::StudyStore store("runs/tune.db");
//   const auto studies = pacer::plan_sweeps(store, plan.sweeps);
//   pacer::run_tuning_worker(store.path(), studies, pacer::WorkerOptions{});
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "score/rules.h"
#include "store/study_store.h"
#include "catalog/trial_spec.h"
#include "tune/ruleset.h"
#include "tune/sampler.h"
#include "tune/scientific.h"
#include "tune/sweep.h"
#include "tune/worker_options.h"

namespace pacer {

struct TuneRequest {
  std::vector<std::string> workloads;  // the workloads, or:
  std::string suite;                   // a workload suite (not both)
  std::string algorithm;               // a name, a plugin library or a Python submission
  std::string space_file;              // external tuning; default: a Python submission's own space
  Ruleset ruleset = Ruleset::external;
  std::string rules;                   // "v0.5", "v0.6"; empty: the current rules
  std::string sampler = "halton";      // also "quasi_random", AlgoPerf's name for it
  SamplerOptions sampler_options;
  int studies = 0;                     // per workload; 0: the rules'
  int64_t trials = 0;                  // per study; 0: 5 (external) or 1 (self-tuning)
  uint64_t seed = 0;                   // base of the trial seeds
  std::optional<uint64_t> held_out_seed;  // v0.5 with a suite: the variant draw; default: seed
  std::string experiment;              // the submission's name; default: the algorithm
  std::string scientific;              // an incremental round, "NAME=v1,v2,..."
  TrialSpec trial;                     // what every trial measures; its budget multiplier: the ruleset's
};

struct TunePlan {
  const RulesPreset* rules = nullptr;
  Ruleset ruleset = Ruleset::external;
  std::string algorithm;               // resolved (a loaded plugin's registered name)
  std::string experiment;
  std::string space_file;              // the space searched, when one is
  bool space_from_submission = false;  // a Python submission's own search space
  std::vector<std::string> warnings;   // what the space's reader tolerated
  std::vector<std::string> held_out;   // v0.5: the held-out variants added to the suite
  uint64_t held_out_seed = 0;
  std::string suite;
  std::optional<ScientificAxis> scientific;
  std::vector<SweepSpec> sweeps;       // one per workload (x value of the scientific axis)

  // The line `pacer tune` starts with: sweeps x studies x trials, ruleset, rules, the store's progress.
  std::string headline(const std::string& store_path, const StudyProgress& before) const;
  // "held-out variants (v0.5, seed 7): fmnist_mlp_tanh, ..." (empty when none were drawn).
  std::string held_out_line() const;
};

// The sweeps of a request, validated (workloads, algorithm, space, sampler, counts, trial
// settings, the scientific axis), with nothing written. InputError naming the culprit.
TunePlan plan_tune(const TuneRequest& request);

// v0.5's held-out draw beside the logs, so that it can be repeated: OUT/held_out_workloads.json.
// Nothing when the plan drew none.
void write_held_out_record(const TunePlan& plan, const std::string& out_dir);

// "store overhead: N calls, X ms in total, P% of T s of trials (E evals recorded)"; empty when the
// worker ran no trial.
std::string store_overhead_line(const WorkerReport& report);

// What a tune ends with: each sweep's details (or, `json`, the sweeps as `pacer study show --json`
// prints them) and whether every trial of them finished.
struct TuneSummary {
  std::string text;
  bool finished = true;
};
TuneSummary summarize_tune(const StudyStore& store, const std::vector<StudyRecord>& studies, bool json);

}  // namespace pacer
