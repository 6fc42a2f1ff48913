#pragma once
// Which hyperparameters matter most: for each hyperparameter, the correlation ratio eta^2 of the
// objective over quantile bins of its unit value (the space's range mapping, log space for log
// ranges; the raw value without a range). eta^2 = between-bin sum of squares / total sum of
// squares, in [0, 1]: the share of the objective's variance that knowing the bin explains.
// Feasible trials only, bins = clamp(n / 3, 2, 5) of about equal counts (ties share a bin, so a
// discrete hyperparameter may get fewer). With pure noise eta^2 is about (bins - 1) / (n - 1),
// reported as chance_level. Evidence per bin: its value range, mean objective, and the fraction of
// infeasible trials whose value falls in it. Needs at least 6 feasible trials; hyperparameters
// constant over the trials are left out.
//
//   pacer::Importance imp = pacer::hyperparameter_importance(data);
//   if (imp.meaningful) std::printf("most influential: %s\n", imp.ranked[0].name.c_str());
#include <string>
#include <vector>

#include "analyze/study_data.h"

namespace pacer {

struct ImportanceBin {
  double low = 0.0, high = 0.0;  // hyperparameter values covered by the bin's feasible trials
  int feasible = 0, infeasible = 0;
  double mean_objective = 0.0;
  double infeasible_fraction() const {
    return feasible + infeasible > 0 ? static_cast<double>(infeasible) / (feasible + infeasible) : 0.0;
  }
};

struct HyperparameterImportance {
  std::string name;
  double eta_squared = 0.0;
  double chance_level = 0.0;
  std::vector<ImportanceBin> bins;
};

struct Importance {
  bool meaningful = false;
  std::string note;                            // why not meaningful
  int feasible = 0;
  std::vector<HyperparameterImportance> ranked;  // by eta^2, highest first
};

Importance hyperparameter_importance(const StudyData& data);
// Whether h stands out from noise: eta^2 at least twice its chance level (the verdict's rule).
bool above_chance(const HyperparameterImportance& h);

}  // namespace pacer
