#pragma once
// Pacer's second score, the pace (docs/scoring.md, "The pace"; its definition and constants were
// fixed in a commit before the board that tests them ran). Beside AlgoPerf's score, never instead
// of it: AlgoPerf's score is mostly "did the median study reach the target", a cliff on which a
// third of a small board's cells are coin flips; the pace is continuous across that cliff.
//   trial cost c: reached within the budget B: t* / B, t* the crossing time interpolated linearly
//                 between the last eval before the target and the first at it;
//                 else 1 + min(g, kPaceMaxGap), g = how far the best value within the budget
//                 misses the target, in widths w = kPaceWidthInSd x the target's seed sd
//                 (a workload without one: kPaceRelativeWidth x |target|);
//                 no finite eval within the budget: 1 + kPaceMaxGap.
//   study: the least cost over its trials; workload: the median over studies (as numpy);
//   pace of a submission: the geometric mean of its workload costs over the scored workloads
//   (no logs for one: 1 + kPaceMaxGap). Lower is faster; 1 = reaching exactly at every budget.
//   Pace speedup of s over a reference r: pace(r) / pace(s).
//
//   double w = pacer::pace_width(target);
//   double c = pacer::trial_pace_cost(trial, target, pacer::TimeAxis::seconds, target.time_budget, w);
#include <optional>
#include <string>
#include <vector>

#include "score/targets.h"
#include "score/time_to_target.h"
#include "score/trial_log.h"

namespace pacer {

constexpr double kPaceWidthInSd = 4.0;       // k: a miss by 4 seed sd costs one budget more
constexpr double kPaceMaxGap = 1.0;          // G: no miss costs more than twice the budget
constexpr double kPaceRelativeWidth = 0.01;  // without a seed sd: 1% of the target

// The seed standard deviation of a Pacer workload's target: the sample sd (n - 1) of the best
// validation values of its target-setting re-runs (docs/targets/<workload>.json); nullopt for
// other workloads (AlgoPerf's).
std::optional<double> target_seed_sd(const std::string& workload);

// w for a target: its seed_sd (ScoringTarget) x kPaceWidthInSd, else kPaceRelativeWidth x |target|.
double pace_width(const ScoringTarget& target);

// A trial's cost. `budget` is on the time axis (seconds, or steps with TimeAxis::steps);
// evals whose submission seconds exceed target.time_budget (when > 0) are never read.
double trial_pace_cost(const TrialLog& trial, const ScoringTarget& target, TimeAxis axis, double budget, double width);

// The geometric mean of costs (empty: NaN).
double geometric_mean(const std::vector<double>& values);

}  // namespace pacer
