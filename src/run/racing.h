#pragma once
// Racing, in one place: the two stop rules that end a trial which can no longer matter (a trial its
// study's best has already beaten; a trial past AlgoPerf's 4x cut-off of the fastest time), and
// their refresh from the trial's ledger, the study store or the worker (run/trial_ledger.h) (now and after each of the trial's evals). The bounds of the
// cut-off come from tune/race_bounds.h. docs/tuning.md, "Racing", says why both are exact.
//
//   auto refresh = pacer::add_racing(ledger, options, study, workload.spec(), trial_options.spec,
//                                    trial_options.extra_stop_rules, [](const std::function<void()>& call) { call(); });
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>

#include "run/trial_ledger.h"
#include "store/study_store.h"
#include "train/stop_rule.h"
#include "catalog/trial_spec.h"
#include "tune/race_bounds.h"
#include "catalog/workload_spec.h"

namespace pacer {

// Racing, exact on both time axes: a study's best trial is the one that reached the target at
// the smallest eval index (then the smaller time or step count), so a trial whose evals up to
// index B (the best index among the study's finished trials, held in `best_eval_index`; -1: none
// yet; the caller refreshes it) all missed the target can only reach later and never be picked.
// It stops at its first eval or step past that point (reason race_study_best). "Reached" is the
// scoring rule (>= / <=, evals within the budget), not the strict in-run check.
std::shared_ptr<const StopRule> stop_when_outraced(WorkloadSpec workload,
                                                   std::shared_ptr<const std::atomic<int64_t>> best_eval_index);

// The same for a trial with a goal (a scaling study's: TrialSpec::goal), whose study's result is the
// fewest steps at which a trial's eval was strictly better than the goal (scale/steps_to_result.h):
// a trial whose evals up to step S (the fewest such steps among the study's finished trials, held
// in `best_step`; -1: none yet) all missed the goal can only reach it later, so it stops once it is
// past S. Ties go on (the study's best trial is then picked by index, as without racing).
std::shared_ptr<const StopRule> stop_when_outraced_to_goal(TrainingGoal goal,
                                                           std::shared_ptr<const std::atomic<int64_t>> best_step);

// The bound of AlgoPerf's performance-ratio cut-off (r_max = 4): upper bounds F on the fastest
// median time to target (seconds and steps) that any other submission compared with this one
// will end with on this workload; infinite while unknown. The caller refreshes them.
struct FastestBound {
  std::atomic<double> seconds{std::numeric_limits<double>::infinity()};
  std::atomic<double> steps{std::numeric_limits<double>::infinity()};
};
// Racing by the cut-off, exact on the seconds axis (docs/tuning.md, "Racing"): stops a trial
// that has not reached the target once its submission time and steps are past 4 F on both axes
// AND its next eval index i satisfies i x eval_period > 4 F seconds: no trial of its study can
// then reach at an index at or above i in under 4 F, so this trial, had it reached later, could
// only have replaced a study time above 4 F by another above 4 F (ratio > 4 either way).
// `eval_period_sec` <= 0 (evals by steps): never fires. Reason race_4x_fastest.
std::shared_ptr<const StopRule> stop_past_the_cutoff(WorkloadSpec workload, double eval_period_sec,
                                                     std::shared_ptr<const FastestBound> fastest);

struct RacingOptions {
  bool cutoff = false;                 // also the 4x cut-off (evals by time only)
  bool checkpointing = false;          // checkpoints take off-clock time between evals: no cut-off then
};

// Adds the racing rules to `rules` (a trial's extra stop rules: for a trial with a goal, the rule by
// its goal, any ruleset; else the study-best rule for an external study; the cut-off when asked
// for and `spec` evaluates by time) and returns their refresh, already run once: the study's best
// (steps to the goal, or eval index to the target), and the cut-off's bound at most every 10 s (it
// reads every study of the workload; the ledger adds a board's fixed times). `timed` wraps each
// read (the worker counts them).
std::function<void()> add_racing(TrialLedger& ledger, const RacingOptions& options, const StudyRecord& study,
                                 const WorkloadSpec& workload, const TrialSpec& spec, StopRules& rules,
                                 const std::function<void(const std::function<void()>&)>& timed);

}  // namespace pacer
