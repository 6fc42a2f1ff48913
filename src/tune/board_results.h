#pragma once
// A board's results: each part (self, external, rerun<k>) scored from the store on both time
// axes, as `pacer score` would score that part's experiments alone (a rerun's "adamw@rerun1"
// scores as "adamw"), and the Markdown tables the docs publish.
//
//   pacer::BoardPlan plan = pacer::plan_board(store, spec);
//   std::vector<pacer::BoardPartScores> parts = pacer::score_board(store.path(), plan, spec.algorithms);
//   std::fputs(pacer::board_markdown(parts, pacer::board_progress(store, plan)).c_str(), stdout);
#include <optional>
#include <string>
#include <vector>

#include "score/scoring.h"
#include "tune/board.h"

namespace pacer {

struct BoardPartScores {
  BoardPart part;
  int64_t trials_done = 0, trials_total = 0;
  std::optional<ScoreResult> seconds, steps;  // nullopt: no finished trial in this part yet
};

// `reference`: the submission speedups are measured against ("nadamw"; empty or absent: none).
std::vector<BoardPartScores> score_board(const std::string& store_location, const BoardPlan& plan,
                                         const std::vector<std::string>& algorithms, const std::string& rules,
                                         const std::string& reference = "nadamw");

// The leaderboards as Markdown: per part, rank, scores by seconds and by steps, the geometric-mean
// speedup over the reference, and the median time to target per workload.
std::string board_markdown(const std::vector<BoardPartScores>& parts, const BoardProgress& progress);

}  // namespace pacer
