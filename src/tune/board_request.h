#pragma once
// `pacer board` as a library call. A BoardRequest says what the user asks (algorithms, workloads
// or a suite, parts, counts, seeds, spaces, a board to rank against, the trial settings);
// make_board_setup checks it and turns it into a BoardSpec with nothing written. Each worker then
// runs its share phase by phase (run/board_worker.h), and board_results reads what the store holds,
// complete or not: each part's scores, the step costs, the stability over studies.
//
//   pacer::BoardRequest request;
//   request.algorithms = {"nadamw", "adamw"};
//   const pacer::BoardSetup setup = pacer::make_board_setup(request);   // InputError, nothing written
//   pacer::StudyStore store("runs/board.db");
//   const pacer::BoardPlan plan = pacer::plan_board(store, setup.spec);
//   pacer::run_board_worker(store.path(), plan, pacer::WorkerOptions{});
//   const pacer::BoardResults results = pacer::board_results(store, plan, setup, /*bootstrap=*/1000);
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "score/rules.h"
#include "store/study_store.h"
#include "catalog/trial_spec.h"
#include "tune/board.h"
#include "tune/board_results.h"
#include "tune/board_stability.h"
#include "tune/board_verdicts.h"
#include "tune/worker_options.h"

namespace pacer {

struct BoardRequest {
  std::vector<std::string> algorithms;  // names or plugin libraries; default: every built-in
  std::vector<std::string> workloads;   // instead of the suite
  // Unset: "board"; with `against`: the workloads that board ran.
  std::optional<std::string> suite;
  // Unset: self and external; with `against`: external only (a newcomer's external run).
  std::optional<std::vector<std::string>> rulesets;
  std::optional<int> reruns;            // unset: 1; with `against`: 0
  int studies = 0;                      // 0: the rules'
  int64_t trials = 0;                   // per external study; 0: 5
  uint64_t seed = 0, sampler_seed = 0;
  // Paired studies (BoardSpec::paired). Unset: off, or as the --against board's external part.
  std::optional<bool> paired;
  std::string spaces_dir = "spaces";    // <spaces_dir>/<algorithm>.json
  std::vector<std::string> spaces;      // "ALGORITHM=FILE": one algorithm's own space
  std::string rules;                    // empty: the current rules
  std::string name;                     // the one algorithm's experiment name instead of its own
  std::vector<std::string> against;     // a board's stores or log folders to race and rank among
  TrialSpec trial;                      // what every trial measures; its budget multiplier: each ruleset's
};

struct BoardSetup {
  BoardSpec spec;
  const RulesPreset* rules = nullptr;
  std::vector<std::string> names;           // the experiments of this run's algorithms
  std::optional<BoardSources> against;      // the board ranked against
  std::vector<std::string> against_locations;
  // The 4x cut-off's fixed times the compared board sets, for WorkerOptions::race_bounds.
  std::shared_ptr<const RaceBounds> race_bounds;
};

// The spec of a request, validated (names, spaces, counts, the compared board): InputError naming
// the culprit; nothing written.
BoardSetup make_board_setup(const BoardRequest& request);
// Every value of the request that names an algorithm (-a and --space's ALGORITHM): the command
// loads the files among them (plugins, Python submissions) before make_board_setup.
std::vector<std::string> named_algorithms(const BoardRequest& request);

// The line a board starts with: its size, its parts, what the store holds and the estimate left,
// e.g. "pacer board: 15 algorithms x 5 workloads, parts: self external rerun1; 3 studies x 5
// trials (external); store runs/board.db: 120 of 2475 trials done; estimated 20h10m of trial time
// left (10h05m with 2 workers)".
std::string board_headline(const BoardSetup& setup, const BoardPlan& plan, const BoardProgress& before,
                           const std::string& store_path, int workers);

// What the store holds now, complete or not.
struct BoardResults {
  BoardProgress progress;
  std::vector<BoardPartScores> parts;
  BoardStepCosts costs;                   // this board's trials and the compared board's stores'
  std::optional<BoardStability> stability;  // with a bootstrap
  std::optional<BoardVerdicts> verdicts;    // with a bootstrap: by the expected pace, per pair
  // board.md: the progress, each part's leaderboards, the step costs, the stability tables.
  std::string markdown() const;
};
BoardResults board_results(const StudyStore& store, const BoardPlan& plan, const BoardSetup& setup,
                           int bootstrap_resamples);

// A newcomer's place among the board's, per part: "signum, external (2 workloads: fmnist_mlp
// synthetic_regression): rank 3 of 16, score 0.6120 (seconds, cpu clock), 1.213x NAdamW's speed;
// by steps: rank 5, 0.933x", then, with a bootstrap, its verdict: "signum against nadamw: pace
// speedup 1.41x (95% interval 1.08-1.90, faster in 99% of resamples), AlgoPerf speedup 1.21x
// (0.85-1.60, 80%); group 2 of 4 by the pace".
std::vector<std::string> newcomer_rank_lines(const BoardResults& results, const std::vector<std::string>& names);

}  // namespace pacer
