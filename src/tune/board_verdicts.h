#pragma once
// A board's verdicts by the expected pace and the pre-registered judgement of its runs
// (docs/scoring.md, "Verdicts per pair" and "How the third board will be judged"): per external
// part, every pair's and every algorithm's verdict against the reference (score/pair_verdicts.h);
// between the external run and each rerun, the expected pace's Spearman with its interval, the
// reversed verdicts, the share of separated pairs separated the same way in the other run, the
// median resolution against the reference, and the verdicts against it that hold in both runs.
// Torch-free.
//
//   pacer::BoardVerdicts v = pacer::board_verdicts(parts, {10000, 1000, "nadamw"});
//   std::fputs(pacer::board_verdicts_markdown(v).c_str(), stdout);
#include <string>
#include <vector>

#include "score/pair_verdicts.h"
#include "tune/board_results.h"

namespace pacer {

struct BoardVerdictOptions {
  int resamples = 10000;           // behind each part's verdicts
  int agreement_resamples = 1000;  // behind the runs' Spearman interval
  std::string reference = "nadamw";
};

struct PartVerdicts {
  std::string part;
  VerdictTables tables;       // the pre-registered analysis: the bootstrap's p-values
  VerdictTables permutation;  // exploratory: the same with the paired permutation test's p-values
};

struct RunsJudgement {
  std::string first, second;
  int algorithms = 0;                         // scored in both runs
  double spearman = 0, spearman_low = 0, spearman_high = 0;  // of the expected paces
  int pairs = 0, reversed = 0;                // pairs in both runs; faster in one, slower in the other
  int separated_first = 0, same_in_second = 0;   // pairs separated in the first run; of those, the same way in the second
  int separated_second = 0, same_in_first = 0;
  double resolution_first = 0, resolution_second = 0;  // median resolution against the reference
  std::vector<std::string> holding;           // algorithms whose verdict against the reference is the same, and not "not separated", in both
};

struct BoardVerdicts {
  BoardVerdictOptions options;
  std::vector<PartVerdicts> parts;            // external parts with finished trials
  std::vector<RunsJudgement> judgements;      // the external run against each rerun
  std::vector<RunsJudgement> permutation_judgements;  // exploratory: by the permutation verdicts
};

BoardVerdicts board_verdicts(const std::vector<BoardPartScores>& parts, const BoardVerdictOptions& options);

std::string board_verdicts_markdown(const BoardVerdicts& verdicts);

}  // namespace pacer
