#include "score/time_to_target.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace pacer {

const char* time_column(TimeAxis axis) { return axis == TimeAxis::seconds ? "score" : "global_step"; }

TimeAxis parse_time_axis(const std::string& name) {
  if (name == "seconds") return TimeAxis::seconds;
  if (name == "steps") return TimeAxis::steps;
  throw InputError("unknown time axis '" + name + "' (valid: seconds, steps)");
}

TrialTime trial_time_to_target(const TrialLog& trial, const ScoringTarget& target, TimeAxis axis, double time_budget) {
  if (!trial.problem.empty()) throw InputError(trial.problem);
  const std::string metric = target.column(), time = time_column(axis);
  if (trial.from_store && (!trial.column(metric) || !trial.column(time))) return TrialTime{};  // never measured
  for (const std::string& name : {metric, time}) {
    if (!trial.column(name)) {
      throw InputError(trial.source + ":1: missing column '" + name + "' (workload " + trial.workload + ")");
    }
    auto bad = trial.bad_cells.find(name);
    if (bad != trial.bad_cells.end()) throw InputError(bad->second);
  }
  const std::vector<double>& values = *trial.column(metric);
  const std::vector<double>& times = *trial.column(time);
  const std::vector<double>* seconds = time_budget > 0 ? trial.column(time_column(TimeAxis::seconds)) : nullptr;
  TrialTime out;
  for (size_t i = 0; i < values.size(); ++i) {
    // Past the budget nothing counts (an empty cell there is no time and cannot be checked).
    if (seconds && i < seconds->size() && (*seconds)[i] > time_budget) break;
    // An infinite metric is a diverged eval, never one that reaches a target (-inf < any loss).
    if (!std::isfinite(values[i]) || !target.reached(values[i])) continue;
    if (std::isnan(times[i])) {
      throw InputError(trial.source + ":" + std::to_string(i + 2) + ": empty '" + time + "' at the eval reaching the target");
    }
    if (!std::isfinite(times[i]) || times[i] < 0) {
      throw InputError(trial.source + ":" + std::to_string(i + 2) + ": '" + time + "' is " +
                       std::to_string(times[i]) + " at the eval reaching the target: not a time or step count");
    }
    if (times[i] == 0) {  // AlgoPerf evaluates after the first step: a time of 0 is no training at all
      throw InputError(trial.source + ":" + std::to_string(i + 2) + ": the target is reached at '" + time +
                       "' 0, before any training: not a log of a run (it would make every other time 0 in comparison)");
    }
    out.eval_index = i;
    out.time = times[i];
    break;
  }
  return out;
}

StudyTime study_time_to_target(const std::vector<const TrialLog*>& trials, const std::vector<TrialTime>& times) {
  StudyTime best;
  if (!trials.empty()) best.study = trials[0]->study;
  for (size_t i = 0; i < trials.size(); ++i) {
    const TrialTime& t = times[i];
    if (!t.reached()) continue;
    const bool better = !best.time.reached() || t.eval_index < best.time.eval_index ||
                        (t.eval_index == best.time.eval_index && t.time < best.time.time);
    if (better) {
      best.time = t;
      best.trial = trials[i];
    }
  }
  return best;
}

double median_time(std::vector<double> times) {
  if (times.empty()) return std::numeric_limits<double>::infinity();
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  // As numpy.median: the mean of the two middle values (inf when either is inf).
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2.0;
}

}  // namespace pacer
