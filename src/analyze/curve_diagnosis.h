#pragma once
// Training-curve diagnosis of one trial (tuning playbook: overfitting, high late variance, still
// improving at the end, saturation long before the end) and retrospective checkpoint selection
// (the best evaluated step vs the final one). Steps are measured as a fraction of the final
// evaluated step. Rules, each needing at least 4 evals of the series it reads:
//   overfitting:    the validation loss's median over the last quarter of evals (at least 2 evals)
//                   is more than 5% above its minimum, the minimum lies before that window, and the
//                   train loss's median over the window is below the train loss at the minimum's
//                   step (train keeps falling while validation rises; without train/loss: no verdict).
//   noisy late:     over the last quarter of evals (at least 3), the objective's step-to-step
//                   variation that is not net movement, (sum|d| - |net|) / (evals - 1), exceeds 10% of
//                   the objective's improvement over the run |best - first| (needs 6 evals).
//   train longer:   the best objective is in the last 25% of steps (step > 0.75 x final step).
//   peaked early:   the best objective (its first occurrence) is in the first 10% of steps.
//
//   pacer::CurveDiagnosis d = pacer::diagnose_curve(trial, "validation/accuracy", true);
//   for (const auto& v : d.verdicts) std::puts(v.c_str());
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/study_data.h"

namespace pacer {

inline constexpr const char* kOverfitting = "overfitting";
inline constexpr const char* kNoisyLate = "noisy late";
inline constexpr const char* kTrainLonger = "still improving at the end: train longer";
inline constexpr const char* kPeakedEarly = "peaked early: the budget is longer than needed";

using CurveSeries = std::vector<std::pair<double, double>>;  // (step, value)

struct CurveDiagnosis {
  std::string trial;  // label "study_1/trial_3"
  std::string study;
  std::optional<double> objective;
  CurveSeries train_loss, validation_loss, objective_curve;
  std::string note;  // why some checks were skipped
  // Retrospective checkpoint selection.
  int64_t best_step = 0, final_step = 0;
  double best_value = 0.0, final_value = 0.0, best_fraction = 0.0;
  // Evidence of the rules.
  std::optional<double> validation_loss_min, validation_loss_min_step, validation_loss_late;
  std::optional<double> train_loss_at_min, train_loss_late;
  std::optional<double> late_noise, improvement;
  std::vector<std::string> verdicts;  // of the k* constants above
};

CurveDiagnosis diagnose_curve(const TrialData& trial, const std::string& objective_metric, bool higher_is_better);

}  // namespace pacer
