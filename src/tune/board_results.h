#pragma once
// A board's results: each part (self, external, rerun<k>) scored from the store on both time
// axes, as `pacer score` would score that part's experiments alone (a rerun's "adamw@rerun1"
// scores as "adamw"), and the Markdown tables the docs publish.
//
//   pacer::BoardPlan plan = pacer::plan_board(store, spec);
//   std::vector<pacer::BoardPartScores> parts = pacer::score_board(store.path(), plan, spec.algorithms);
//   std::fputs(pacer::board_markdown(parts, pacer::board_progress(store, plan)).c_str(), stdout);
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "score/scoring.h"
#include "tune/board.h"
#include "tune/race_bounds.h"

namespace pacer {

struct BoardPartScores {
  BoardPart part;
  int64_t trials_done = 0, trials_total = 0;
  std::optional<ScoreResult> seconds, steps;  // nullopt: no finished trial in this part yet
  std::vector<TrialLog> trials;                // what was scored, named as the algorithms
  std::vector<std::string> names;              // the submissions scored, in order
};

// A board to compare with (`pacer board --against`): its trials by part, read from stores (every
// part) or log folders in the reference layout (the external part). InputError on unreadable input.
struct BoardSources {
  std::vector<TrialLog> external, self;  // submissions named as in their store ("adamw@rerun1")
  std::vector<std::string> names;        // its algorithms (rerun tags dropped), in order
  std::vector<std::string> workloads;    // the workloads its trials ran on, in order of appearance
  // How its external run drew seeds and points, read from its stores' studies: a newcomer paired
  // with it takes the same (nullopt: log folders only, or studies that disagree).
  struct Pairing {
    uint64_t seed = 0, sampler_seed = 0;
    bool paired = false;  // its studies drew from the paired_halton sampler
  };
  std::optional<Pairing> pairing;
  int studies = 0;       // the most studies and trials per study of its external run (0: none)
  int64_t trials = 0;
};
BoardSources read_board_sources(const std::vector<std::string>& locations);

// The 4x cut-off's fixed bounds that a compared board sets (tune/race_bounds.h): per workload and
// ruleset, its fastest median time to target on both axes (parts without reruns: their first run),
// from submissions with an odd number of studies. Error when the board's clock is not `clock`.
RaceBounds board_bounds(const BoardSources& board, const std::string& rules, const std::string& clock);

// `names`: the board's experiments (its algorithms, or their --name), scored with those of
// `against` when given. `reference`: the submission speedups are measured against ("nadamw";
// absent: none).
std::vector<BoardPartScores> score_board(const std::string& store_location, const BoardPlan& plan,
                                         const std::vector<std::string>& names, const std::string& rules,
                                         const BoardSources* against = nullptr,
                                         const std::string& reference = "nadamw");

// What one training step costs each algorithm on each workload, measured by the board's own
// trials (every part): per trial the submission time between its first eval and its last over the
// steps between them (so start-up and the first step's allocations are left out), the median over
// trials. Beside the scores it tells whether an algorithm loses on steps or on seconds.
struct StepCost {
  double seconds_per_step = 0;
  int trials = 0;
};
struct BoardStepCosts {
  std::string reference;  // the algorithm ratios are taken against ("adamw")
  std::string clock;      // the trials' clock ("cpu"; "mixed" when they differ)
  std::vector<std::string> algorithms, workloads;
  std::map<std::string, std::map<std::string, StepCost>> cost;  // algorithm -> workload -> cost

  // This algorithm's step cost over the reference's on a workload; nullopt where either is missing.
  std::optional<double> ratio(const std::string& algorithm, const std::string& workload) const;
  // The geometric mean of ratio() over the workloads where it exists.
  std::optional<double> mean_ratio(const std::string& algorithm) const;
};
// `stores`: this board's store, and those of a board given with --against (a newcomer's costs
// beside the board's); each algorithm of `names` from every store that has its trials.
BoardStepCosts board_step_costs(const std::vector<std::string>& stores, const std::vector<std::string>& names,
                                const std::string& reference = "adamw");
// step_costs.csv: algorithm, workload, seconds_per_step, trials, ratio to the reference.
std::string step_costs_csv(const BoardStepCosts& costs);

// The leaderboards as Markdown: per part, rank, scores by seconds and by steps, the geometric-mean
// speedup over the reference, and the median time to target per workload; then the step costs
// when given.
std::string board_markdown(const std::vector<BoardPartScores>& parts, const BoardProgress& progress,
                           const BoardStepCosts* costs = nullptr);

}  // namespace pacer
