#pragma once
// A board: every algorithm of a list through a workload suite under the benchmark's rulesets,
// in one study store. Its parts are the self-tuning run (defaults, one trial per study), the
// external-tuning run (each algorithm's shipped search space) and reruns of the external run with
// other seeds (the ranking's stability). Parts are separate leaderboards: a rerun's experiments
// are named "<algorithm>@rerun<k>" so that the store can hold them beside the first run.
//
// Planning is idempotent (the same spec finds the same studies), so a board resumes after any
// stop. The phases order the work so that a partial board is already useful and every run sees
// the same machines: study 1 of every part's algorithm x workload before any study 2 (the
// external run and its reruns interleaved), and inside a phase trial i of every study before any
// trial i + 1 (the store's claim order), so paired slots run close together in time.
//
//   pacer::BoardSpec spec;
//   spec.algorithms = {"nadamw", "adamw"};
//   spec.workloads = pacer::workload_suite("board");
//   pacer::StudyStore store("runs/board.db");
//   pacer::BoardPlan plan = pacer::plan_board(store, spec);
//   for (const auto& phase : plan.phases) run_tuning_worker(store.path(), phase.studies, options);
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "store/study_store.h"
#include "catalog/trial_spec.h"
#include "tune/ruleset.h"

namespace pacer {

struct BoardSpec {
  std::vector<std::string> algorithms;  // built-in names or loaded plugins
  std::vector<std::string> workloads;
  bool self_tuning = true;              // the self-tuning part
  bool external = true;                 // the external-tuning part
  int reruns = 1;                       // extra external runs, with seeds seed+k and sampler_seed+k
  int studies = 3;
  int64_t trials = kDefaultTrialsPerStudy;  // per external study
  uint64_t seed = 0, sampler_seed = 0;
  // Paired studies (docs/scoring.md, "Paired runs"): every algorithm's study j, trial i draws the
  // same point of one board-wide quasi-random cube (the paired_halton sampler) beside the same
  // training seed, which every board shares anyway. Off: each space its own reference sequence.
  bool paired = false;
  // Per algorithm, the first study planned (default 1): an extension plans only studies first..studies.
  std::map<std::string, int> first_study;
  std::string spaces_dir = "spaces";    // <spaces_dir>/<algorithm>.json for external tuning
  // A space for one algorithm instead of <spaces_dir>/<algorithm>.json (a newcomer's own file).
  std::map<std::string, std::string> space_files;
  // The experiment name of an algorithm instead of its own (a newcomer that is a built-in with a
  // space of its own needs another name than the board's entry).
  std::map<std::string, std::string> names;
  std::string name_of(const std::string& algorithm) const {
    auto it = names.find(algorithm);
    return it == names.end() ? algorithm : it->second;
  }
  TrialSpec external_trial;             // what every external trial shares (budget multiplier 1)
  TrialSpec self_trial;                 // the same with the self-tuning budget multiplier
};

// One leaderboard of the board: "self", "external" or "rerun<k>".
struct BoardPart {
  std::string name;
  Ruleset ruleset = Ruleset::external;
  int rerun = 0;  // 0: the first external run
};

struct BoardPhase {
  std::string label;                 // e.g. "external, study 2 of 3"
  std::vector<StudyRecord> studies;  // every algorithm x workload
};

struct BoardPlan {
  std::vector<BoardPart> parts;
  std::vector<BoardPhase> phases;  // in run order
  std::vector<StudyRecord> studies() const;  // every phase's, in run order
  std::vector<int64_t> study_ids() const;
};

// The experiment name of an algorithm in a part: "adamw", or "adamw@rerun1".
std::string board_experiment(const std::string& algorithm, int rerun);
// The part an experiment belongs to and its algorithm: ("adamw", 1) for "adamw@rerun1".
std::pair<std::string, int> board_algorithm_of(const std::string& experiment);

// Validates the whole spec (names, spaces, counts): InputError naming the culprit. Writes nothing,
// so a command can check its input before it creates a store.
void validate_board(const BoardSpec& spec);
// Validates, then creates or finds every study in one transaction.
BoardPlan plan_board(StudyStore& store, const BoardSpec& spec);
// The same plan as far as the store holds it, writing nothing (pacer board --no-run): studies not
// stored (a part never started, or planned under other settings) are left out of their phases.
BoardPlan find_board(const StudyStore& store, const BoardSpec& spec);

// Where a board stands, and what the rest costs. The cost of a trial still to run is the mean
// wall time of the finished trials of its workload and ruleset in the store (their whole trial:
// submission time, evals, start-up), else `fallback_sec(study)`.
struct BoardProgress {
  int64_t done = 0, total = 0, running = 0;
  int64_t stopped = 0;                 // done, of which stopped by racing
  double remaining_trial_sec = 0.0;    // the estimated cost of every trial not done yet
  double done_trial_sec = 0.0;         // the measured cost of the trials done
  // Each failed trial (a crash, a hang past its limit, a submission's error; not a divergence,
  // which is a result): "ALGORITHM/WORKLOAD/study_K trial I: the message's first line".
  std::vector<std::string> failed;
};
BoardProgress board_progress(const StudyStore& store, const BoardPlan& plan);
// The same from trials already read (pacer serve reads them once for its tables too).
BoardProgress board_progress(const std::vector<StudyRecord>& studies,
                             const std::function<std::vector<TrialRecord>(const StudyRecord&)>& trials_of);

// A trial's cost before any of its kind has run: its budget (with the multiplier) plus its evals
// at the workload's measured eval cost share, used until the store has measurements.
double default_trial_cost_sec(const StudyRecord& study);

std::string format_duration(double seconds);  // "3h07m", "12m05s", "41s"

// What a board that stopped short says: "pacer board: WHY with 12 of 75 trials done (41m05s of trial
// time left); run the same command again to continue".
std::string board_unfinished_line(const BoardProgress& progress, const std::string& why);

}  // namespace pacer
