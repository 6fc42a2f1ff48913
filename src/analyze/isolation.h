#pragma once
// Isolation plot data for a scientific hyperparameter (tuning playbook: compare the scientific
// values each at its best, the nuisance hyperparameters tuned away). A selection with rounds
// "<base>@<name>=<value>" has one group per value; per group, the best objective of each study
// (nuisance hyperparameters optimized within the study), and their mean, min and max: the spread
// over studies. Verdict: "<name>=<value> is best (mean M over N studies)", followed by "; the
// spread over studies overlaps <other value>: not conclusive" when the best group's [min, max]
// overlaps another group's.
//
//   if (auto iso = pacer::isolate_scientific(data)) std::puts(iso->verdict.c_str());
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/study_data.h"

namespace pacer {

struct IsolationGroup {
  std::string value;                                             // "tanh"
  std::vector<std::pair<std::string, std::optional<double>>> studies;  // study name -> best (none: no feasible trial)
  std::optional<double> mean, min, max;                          // over studies with a best
};

struct Isolation {
  std::string name;                  // the scientific hyperparameter
  std::vector<IsolationGroup> groups;  // by value (numerically when all values are numbers)
  std::string verdict;
};

// nullopt unless the data has a scientific hyperparameter with at least two values.
std::optional<Isolation> isolate_scientific(const StudyData& data);

}  // namespace pacer
