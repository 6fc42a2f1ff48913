#pragma once
// How far a board's ranking can be trusted: a bootstrap over studies. Each resample draws, for
// every algorithm x workload of a part, as many studies as it has, with replacement, and scores
// the part again by seconds. From the resamples: each algorithm's rank interval, how often it
// scores above the next algorithm down the board (below the level: a tie within the noise), and
// for the external run and each rerun, the rank correlation of their scores with its interval.
// The rankings by seconds and by steps are compared too (point estimates). The same resamples
// give the verdicts of docs/scoring.md ("How it will be judged"): each algorithm's speedup over
// the reference (NAdamW) by AlgoPerf's score and by the pace, with intervals and the probability
// of being faster, the groups separated by the pace, and the runs' agreement by the pace.
//
//   std::vector<pacer::BoardPartScores> parts = pacer::score_board(store, plan, names, "v0.6");
//   pacer::BoardStability s = pacer::board_stability(parts, pacer::BoardStabilityOptions{});
//   std::fputs(pacer::board_stability_markdown(s).c_str(), stdout);
#include <cstdint>
#include <string>
#include <vector>

#include "tune/board_results.h"

namespace pacer {

struct BoardStabilityOptions {
  int resamples = 1000;
  uint64_t seed = 1;
  double level = 0.95;       // of the intervals, and the share that makes two ranks distinguishable
  std::string rules = "v0.6";
  std::string reference = "nadamw";  // the verdicts' baseline (none when it is not on the board)
};

// One algorithm against the reference, from the bootstrap: point estimate, central interval, and
// the share of resamples in which it is faster (speedup > 1).
struct Verdict {
  std::string name;
  double speedup = 0, speedup_low = 0, speedup_high = 0, p_faster = 0;        // AlgoPerf's speedup
  double pace_speedup = 0, pace_low = 0, pace_high = 0, pace_p_faster = 0;    // pace(reference) / pace
  int group = 0;  // 1 = the fastest group by the pace
};

struct RankInterval {
  std::string name;
  int rank = 0;              // on the board, by seconds
  double score = 0;
  int low = 0, high = 0;     // the central `level` interval of its rank over the resamples
  double above_next = 0;     // share of resamples in which it scores above the next one down (last: 0)
};

struct PartStability {
  std::string part;
  std::vector<RankInterval> ranks;  // board order
  // The ranking by seconds against the ranking by steps, over this part's algorithms.
  double seconds_steps_spearman = 0, seconds_steps_kendall = 0;
  int changed_rank = 0;             // algorithms whose rank by steps differs from their rank by seconds
  // Against BoardStabilityOptions::reference, in order of pace (empty without the reference).
  std::vector<Verdict> verdicts;
  int groups = 0;                   // groups separated at `level` by the pace
};

struct RunAgreement {
  std::string first, second;        // "external", "rerun1"
  int algorithms = 0;               // scored in both
  double spearman = 0, kendall = 0; // of their scores by seconds
  double spearman_low = 0, spearman_high = 0, kendall_low = 0, kendall_high = 0;  // bootstrap interval
  double pace_spearman = 0, pace_spearman_low = 0, pace_spearman_high = 0;        // of their paces
};

struct BoardStability {
  BoardStabilityOptions options;
  std::vector<PartStability> parts;      // the parts with finished trials
  std::vector<RunAgreement> agreements;  // the external part against each rerun with finished trials
};

BoardStability board_stability(const std::vector<BoardPartScores>& parts, const BoardStabilityOptions& options);

std::string board_stability_markdown(const BoardStability& stability);
std::string board_stability_json(const BoardStability& stability);

}  // namespace pacer
