#pragma once
// `pacer board -a NEW --against BOARD --until-separated`: a newcomer's verdicts against the
// board's reference (NAdamW) and its best algorithm (by the expected pace of its external run),
// decided at looks fixed in advance (score/sequential_verdict.h). Look 1 is the newcomer's own
// studies (the board's count), paired with the board's by seed and point; each later look adds one
// study to the newcomer and to each opponent still undecided (the opponent's study k+1 in this run's
// store, drawn as the board would have drawn it), until every comparison is decided, the plan's last
// look, or the deadline. Every process of the run (the workers too) walks the same looks from the
// store, so they agree on each decision without talking. Torch-free.
//
//   pacer::UntilSeparated u = pacer::until_separated_setup(setup, /*max_studies=*/6);
//   pacer::UntilSeparatedResult r = pacer::run_until_separated(store, setup, u, run_workers, stopped);
//   for (const auto& line : pacer::until_separated_lines(r, u)) std::printf("%s\n", line.c_str());
#include <functional>
#include <string>
#include <vector>

#include "score/pair_verdicts.h"
#include "score/sequential_verdict.h"
#include "store/study_store.h"
#include "tune/board_request.h"

namespace pacer {

struct UntilSeparated {
  SequentialPlan plan;
  std::string newcomer;                // its experiment name
  std::vector<std::string> opponents;  // the reference, then the board's best when it is another
  int resamples = 10000;
};

// InputError: no --against board, not exactly one algorithm, the reference not on the board, or a
// --max-studies below the board's studies.
UntilSeparated until_separated_setup(const BoardSetup& setup, int max_studies);

// What look `look` plans: the newcomer's studies up to the look's count, and for each opponent
// still undecided, its studies past the board's up to the same count.
BoardSpec look_spec(const BoardSetup& setup, const UntilSeparated& u, size_t look, const std::vector<std::string>& state);

// The newcomer against each opponent (a = the newcomer), from this store's trials and the board's.
std::vector<PairVerdict> look_verdicts(const std::string& store, const BoardSetup& setup, const UntilSeparated& u);

struct UntilSeparatedResult {
  std::vector<std::string> state;        // per opponent: faster, slower, not separated, undecided
  std::vector<PairVerdict> verdicts;     // per opponent, at the look that decided it (or the last)
  std::vector<int> studies;              // per opponent: the newcomer's studies at that look
  size_t looks = 0;                      // looks judged
};

// Walks the looks: plans each in `store`, calls `run` with its plan (the workers' share), judges it
// and hands the result so far to `judged` (look_line says it). Stops when every comparison is
// decided, after the last look, or when `stopped()` (a look not finished is not judged).
UntilSeparatedResult run_until_separated(StudyStore& store, const BoardSetup& setup, const UntilSeparated& u,
                                         const std::function<void(const BoardPlan&)>& run,
                                         const std::function<bool()>& stopped,
                                         const std::function<void(const UntilSeparatedResult&)>& judged = {});

// The same verdicts from what the store holds now, judged once at the familywise 5% (Holm over the
// opponents): `pacer board -a NEW --against BOARD` without --until-separated. Writes nothing.
UntilSeparatedResult judge_newcomer(const std::string& store, const BoardSetup& setup, const UntilSeparated& u);

// "signum against nadamw: faster, expected-pace speedup 1.412x (95% 1.180-1.702), resolution
// 1.201x, P(improvement) 71%, decided at look 2 of 4 (4 studies; alpha 0.0100)".
std::vector<std::string> until_separated_lines(const UntilSeparatedResult& result, const UntilSeparated& u);

// What the last judged look decided, while the run goes on: "look 1 of 4 (3 studies; alpha
// 0.0050): nadamw.py against nadamw undecided (0.912x, 95% 0.801-1.050, p 0.2100), against
// schedule_free_adamw slower (0.410x, 95% 0.330-0.520, p 0.0001); next: 4 studies of nadamw.py and
// nadamw". Only the comparisons that look judged are named.
std::string look_line(const UntilSeparatedResult& result, const UntilSeparated& u);

}  // namespace pacer
