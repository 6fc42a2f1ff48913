#pragma once
// Search-space boundary check (tuning playbook: "is the best trial near a boundary? then widen").
// The best trials are the top max(1, ceil(10% of the feasible trials)) trials, at most 3. For each
// range dimension with min < max, each best trial's unit position u in [0, 1] is computed (in log
// space for a log range). A dimension is flagged when the best trial, or a majority of the best
// trials, lie in the outer 10% on the same side: u > 0.9 -> "expand <name> upwards", u < 0.1 ->
// "expand <name> downwards". Discrete and fixed (min == max) dimensions, list spaces and studies
// without a space are skipped with the reason.
//
//   pacer::BoundaryCheck check = pacer::check_boundaries(data);
//   for (const auto& d : check.dimensions) if (!d.verdict.empty()) std::puts(d.verdict.c_str());
#include <string>
#include <vector>

#include "analyze/study_data.h"

namespace pacer {

struct BoundaryPoint {
  std::string trial;  // label "study_1/trial_4"
  double value = 0.0, unit = 0.0, objective = 0.0;
};

struct BoundaryDimension {
  std::string name;
  bool checked = false;
  std::string skip_reason;            // when not checked
  double min = 0.0, max = 0.0;
  bool log = false;
  std::vector<BoundaryPoint> best;    // the best trials' positions, best first
  std::string verdict;                // "expand learning_rate upwards", or empty
};

struct BoundaryCheck {
  size_t best_count = 0;              // how many best trials were looked at
  std::string skip_reason;            // the whole check: no space, no feasible trial
  std::vector<BoundaryDimension> dimensions;
  std::vector<std::string> verdicts() const;
};

// u of a value in a range dimension (log space for log ranges); not clamped.
double unit_position(const SearchDimension& dim, double value);
BoundaryCheck check_boundaries(const StudyData& data);

}  // namespace pacer
