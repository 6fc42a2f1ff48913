#include "run/racing.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

namespace pacer {
namespace {

// How often a running trial re-reads the 4x cut-off's bound (at an eval): it reads every study of
// its workload, and a bound only moves when one of them finishes.
constexpr double kCutoffRefreshSec = 10.0;

}  // namespace

std::shared_ptr<const StopRule> stop_when_outraced(WorkloadSpec workload,
                                                   std::shared_ptr<const std::atomic<int64_t>> best_eval_index) {
  const std::string key = "validation/" + workload.target_metric;
  return stop_rule_from(StopReason::race_study_best, [workload = std::move(workload), best_eval_index, key](const TrialProgress& p) {
    const int64_t bound = best_eval_index->load();
    const auto& evals = p.state.evals;
    if (bound < 0 || static_cast<int64_t>(evals.size()) <= bound) return false;
    for (int64_t i = 0; i <= bound; ++i) {
      const EvalRecord& e = evals[static_cast<size_t>(i)];
      // As compute_targets: an eval past the budget does not count.
      if (p.state.time_budget > 0 && e.accumulated_submission_time > p.state.time_budget) break;
      auto v = e.metrics.find(key);
      if (v != e.metrics.end() && std::isfinite(v->second) &&
          workload.reached(v->second, workload.validation_target, /*strict=*/false)) {
        return false;  // reached at or before the best index: it may still be (or tie) the best
      }
    }
    return true;
  });
}

std::shared_ptr<const StopRule> stop_when_outraced_to_goal(TrainingGoal goal,
                                                           std::shared_ptr<const std::atomic<int64_t>> best_step) {
  return stop_rule_from(StopReason::race_study_best, [goal = std::move(goal), best_step](const TrialProgress& p) {
    const int64_t bound = best_step->load();
    if (bound < 0) return false;
    const auto& evals = p.state.evals;
    const bool past = p.state.step > bound || (!evals.empty() && evals.back().step >= bound);
    if (!past) return false;
    for (const EvalRecord& e : evals) {
      if (e.step > bound) break;
      auto v = e.metrics.find(goal.metric);
      if (v != e.metrics.end() && std::isfinite(v->second) && goal.reached_by(v->second)) return false;
    }
    return true;
  });
}

std::shared_ptr<const StopRule> stop_past_the_cutoff(WorkloadSpec workload, double eval_period_sec,
                                                     std::shared_ptr<const FastestBound> fastest) {
  const std::string key = "validation/" + workload.target_metric;
  constexpr double kRMax = 4.0;
  // The bookkeeping between an eval's end and the next step (microseconds) is not submission
  // time; a thousandth of the period covers it.
  const double min_gap = eval_period_sec * (1.0 - 1e-3);
  return stop_rule_from(StopReason::race_4x_fastest, [workload = std::move(workload), min_gap, fastest, key](const TrialProgress& p) {
    if (min_gap <= 0) return false;
    const double f_sec = fastest->seconds.load(), f_steps = fastest->steps.load();
    if (!std::isfinite(f_sec) || !std::isfinite(f_steps)) return false;
    const auto& s = p.state;
    if (s.accumulated_submission_time <= kRMax * f_sec || static_cast<double>(s.step) <= kRMax * f_steps) return false;
    const auto next_index = static_cast<double>(s.evals.size());
    if (next_index * min_gap <= kRMax * f_sec) return false;
    for (const EvalRecord& e : s.evals) {
      if (s.time_budget > 0 && e.accumulated_submission_time > s.time_budget) break;
      auto v = e.metrics.find(key);
      if (v != e.metrics.end() && std::isfinite(v->second) &&
          workload.reached(v->second, workload.validation_target, /*strict=*/false)) {
        return false;  // it has its time to target already
      }
    }
    return true;
  });
}

std::function<void()> add_racing(TrialLedger& ledger, const RacingOptions& options, const StudyRecord& study,
                                 const WorkloadSpec& workload, const TrialSpec& spec, StopRules& rules,
                                 const std::function<void(const std::function<void()>&)>& timed) {
  std::shared_ptr<std::atomic<int64_t>> best_index, best_goal_step;
  if (spec.goal) {
    best_goal_step = std::make_shared<std::atomic<int64_t>>(-1);
    rules.push_back(stop_when_outraced_to_goal(*spec.goal, best_goal_step));
  } else if (study.ruleset == "external") {
    best_index = std::make_shared<std::atomic<int64_t>>(-1);
    rules.push_back(stop_when_outraced(workload, best_index));
  }
  auto fastest = std::make_shared<FastestBound>();
  // The 4x cut-off: asked for, and evals by time (its bound needs the eval period).
  const bool cutoff =
      options.cutoff && spec.eval_every_steps == 0 && spec.eval_at_steps.empty() && !options.checkpointing;
  if (cutoff) rules.push_back(stop_past_the_cutoff(workload, workload.eval_period_sec, fastest));
  auto last_cutoff_read = std::make_shared<std::optional<std::chrono::steady_clock::time_point>>();
  const std::optional<TrainingGoal> goal = spec.goal;
  auto refresh = [&ledger, timed, best_index, best_goal_step, goal, fastest, cutoff, last_cutoff_read] {
    if (best_goal_step) {
      std::optional<int64_t> best;
      timed([&] { best = ledger.best_steps_to_goal(*goal); });
      best_goal_step->store(best ? *best : -1);
    }
    if (best_index) {
      std::optional<int64_t> best;
      timed([&] { best = ledger.best_eval_index_to_target(); });
      best_index->store(best ? *best : -1);
    }
    const auto now = std::chrono::steady_clock::now();
    if (cutoff && (!*last_cutoff_read || now - **last_cutoff_read >= std::chrono::duration<double>(kCutoffRefreshSec))) {
      *last_cutoff_read = now;
      FastestTimes f;
      timed([&] { f = ledger.fastest(); });
      fastest->seconds.store(f.seconds);
      fastest->steps.store(f.steps);
    }
  };
  refresh();
  return refresh;
}

}  // namespace pacer
