#pragma once
// Time-to-target at the three levels of AlgoPerf scoring:
//   trial:    the time column at the first eval whose validation metric reaches the target (<=/>=);
//   study:    over its trials, the earliest eval index that reaches it (ties: the smaller time);
//   workload: the median over studies, infinities included.
// "Time" is the `score` column (submission seconds) or, hardware-independent, `global_step`.
//
//   pacer::TrialTime t = pacer::trial_time_to_target(trial, target, pacer::TimeAxis::seconds);
//   double w = pacer::median_time({12.0, inf, 15.0});  // 15
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "score/targets.h"
#include "score/trial_log.h"

namespace pacer {

enum class TimeAxis { seconds, steps };
const char* time_column(TimeAxis axis);  // "score" or "global_step"
TimeAxis parse_time_axis(const std::string& name);  // "seconds" | "steps", else InputError

constexpr size_t kNotReached = static_cast<size_t>(-1);

struct TrialTime {
  size_t eval_index = kNotReached;
  double time = std::numeric_limits<double>::infinity();
  bool reached() const { return eval_index != kNotReached; }
};

// Throws InputError naming the file (and line) when the trial is malformed for this target:
// TrialLog::problem set, the metric or time column missing, or a non-numeric cell in them.
// `time_budget` > 0: an eval whose submission time (the `score` column, on either axis) is past it
// never reaches (AlgoPerf's budget from v0.6 on); 0: no cut.
TrialTime trial_time_to_target(const TrialLog& trial, const ScoringTarget& target, TimeAxis axis,
                               double time_budget = 0.0);

struct StudyTime {
  int study = 0;
  const TrialLog* trial = nullptr;  // the trial that set the time; null when none reached
  TrialTime time;
};

// `times[i]` belongs to `trials[i]` (all of one study).
StudyTime study_time_to_target(const std::vector<const TrialLog*>& trials, const std::vector<TrialTime>& times);

double median_time(std::vector<double> times);  // inf when empty

}  // namespace pacer
