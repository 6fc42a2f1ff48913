#include "tune/race_bounds.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "tune/board.h"

namespace pacer {
namespace {

// The time of a finished study on both axes: its best trial by eval index (then time or steps),
// as scoring picks it; infinite when no trial reached.
FastestTimes study_time(const std::vector<TrialRecord>& trials) {
  FastestTimes t;
  std::optional<std::pair<int64_t, double>> by_seconds, by_steps;
  for (const auto& trial : trials) {
    if (!trial.result || !trial.result->eval_index_to_target) continue;
    const TrialOutcome& r = *trial.result;
    if (r.time_to_target) {
      const std::pair<int64_t, double> key{*r.eval_index_to_target, *r.time_to_target};
      if (!by_seconds || key < *by_seconds) by_seconds = key;
    }
    if (r.steps_to_target) {
      const std::pair<int64_t, double> key{*r.eval_index_to_target, static_cast<double>(*r.steps_to_target)};
      if (!by_steps || key < *by_steps) by_steps = key;
    }
  }
  if (by_seconds) t.seconds = by_seconds->second;
  if (by_steps) t.steps = by_steps->second;
  return t;
}

// The k-th smallest of n values (k = n/2 + 1), or infinity for an even n.
double median_upper_bound(std::vector<double> values) {
  const size_t n = values.size();
  if (n == 0 || n % 2 == 0) return std::numeric_limits<double>::infinity();
  std::sort(values.begin(), values.end());
  return values[n / 2];
}

}  // namespace

void RaceBounds::add_fixed(const std::string& workload, const std::string& ruleset, FastestTimes times) {
  auto [it, fresh] = fixed_.emplace(std::make_pair(workload, ruleset), times);
  if (!fresh) {
    it->second.seconds = std::min(it->second.seconds, times.seconds);
    it->second.steps = std::min(it->second.steps, times.steps);
  }
}

std::optional<FastestTimes> RaceBounds::fixed(const std::string& workload, const std::string& ruleset) const {
  if (auto it = fixed_.find({workload, ruleset}); it != fixed_.end()) return it->second;
  return std::nullopt;
}

FastestTimes RaceBounds::fastest(const StudyStore& store, const StudyRecord& study) const {
  FastestTimes best;
  if (auto it = fixed_.find({study.workload, study.ruleset}); it != fixed_.end()) best = it->second;
  const int part = board_algorithm_of(study.experiment).second;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_experiment;
  for (const auto& other : store.studies()) {
    if (other.experiment == study.experiment || other.workload != study.workload || other.ruleset != study.ruleset ||
        other.trial_spec != study.trial_spec || board_algorithm_of(other.experiment).second != part) {
      continue;
    }
    const auto trials = store.trials(other.id);
    const bool finished = static_cast<int64_t>(trials.size()) >= other.planned_trials &&
                          std::all_of(trials.begin(), trials.end(), [](const TrialRecord& t) { return is_terminal(t.status); });
    const FastestTimes t = finished ? study_time(trials) : FastestTimes{};
    auto& times = by_experiment[other.experiment];
    times.first.push_back(t.seconds);
    times.second.push_back(t.steps);
  }
  for (const auto& [experiment, times] : by_experiment) {
    best.seconds = std::min(best.seconds, median_upper_bound(times.first));
    best.steps = std::min(best.steps, median_upper_bound(times.second));
  }
  return best;
}

}  // namespace pacer
