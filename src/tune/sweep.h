#pragma once
// A sweep: the N tuning studies of one workload x algorithm under one ruleset, with the trial
// settings they share. Planning a sweep writes its studies and trials to the study store (or
// finds them there, when the same command runs again), so any worker can run them.
//
//   pacer::SweepSpec sweep;
//   sweep.workload = "fmnist_mlp"; sweep.algorithm = "nadamw";
//   sweep.space = pacer::SearchSpace::from_json_file("spaces/nadamw.json");
//   std::vector<pacer::StudyRecord> studies = pacer::plan_sweeps(store, {sweep});
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/study_store.h"
#include "catalog/trial_spec.h"
#include "tune/ruleset.h"
#include "tune/sampler.h"
#include "tune/search_space.h"

namespace pacer {

struct SweepSpec {
  std::string experiment;  // submission name; default: the algorithm
  std::string workload, algorithm;
  Ruleset ruleset = Ruleset::external;
  std::optional<SearchSpace> space;   // required under external tuning
  std::string space_origin;           // for messages
  std::string sampler = "halton";
  SamplerOptions sampler_options;     // seed of the sampler and of the recorded shuffle
  int studies = 3;
  // The first study this sweep plans: studies first_study..studies (a newcomer's verdict until
  // separated extends a board's algorithm with studies 4.. in its own store, paired by index).
  int first_study = 1;
  int64_t trials = 5;                 // per study (1 under self-tuning)
  uint64_t seed = 0;                  // trial seeds derive from (seed, study, trial)
  TrialSpec trial;                    // what every trial of the sweep shares (stored with its studies)
};

// InputError naming the culprit for an unknown workload/algorithm, bad counts, a space that does
// not fit the algorithm's declarations, a sampler that cannot serve the space or the trial count.
void validate_sweep(const SweepSpec& sweep);

// Validates every sweep (names, space against the algorithm's declarations, counts) before any
// store write, then creates or extends their studies in one transaction. InputError on bad input.
std::vector<StudyRecord> plan_sweeps(StudyStore& store, const std::vector<SweepSpec>& sweeps);

// The studies these sweeps plan, as they are stored, without touching a store (validates first).
std::vector<StudyDefinition> sweep_definitions(const std::vector<SweepSpec>& sweeps);

// The stored studies of these sweeps that exist, in sweep order, creating nothing: what a command
// that only reads (pacer board --no-run) sees of a plan.
std::vector<StudyRecord> find_sweep_studies(const StudyStore& store, const std::vector<SweepSpec>& sweeps);

// The trial seed of trial `index` (1-based) of study `study` (1-based).
uint64_t trial_seed(uint64_t seed, int study, int64_t index);

}  // namespace pacer
