#pragma once
// A batch-size scaling study read back from the study store (torch-free): for each series (an
// experiment: an algorithm, or an algorithm with a combiner) and each batch size, the trials'
// goal-metric curves, steps-to-result, the best trial and its hyperparameters, regimes and
// efficiencies, the fit of S(B) = S_min (1 + B_crit / B) with a bootstrap interval, and the
// gradient noise scale logged by the trials. Writers for the table, JSON, CSV, the log-log plot
// and a self-contained HTML page.
//
//   auto report = pacer::read_scaling_study(store, studies, {"validation/accuracy", 0.88, true});
//   std::fputs(pacer::scaling_table_text(report).c_str(), stdout);
//   pacer::write_scaling_outputs(report, "runs/scale");
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/trial_spec.h"
#include "scale/scaling_analysis.h"
#include "scale/steps_to_result.h"
#include "store/study_store.h"

namespace pacer {

struct BatchSizeResult {
  int64_t batch_size = 0;
  int64_t step_budget = 0;
  StepsToResult result;
  std::string best_hparams;              // JSON of the best trial
  std::string best_trial_folder;         // its log folder under DIR/logs (EXPERIMENT/study_k/WORKLOAD_libtorch/trial_i)
  std::optional<double> noise_scale;     // train/noise_scale of the best trial at its hit
  int pending = 0;                       // trials not finished yet
};

struct ScalingSeries {
  std::string name;                      // the experiment
  std::string algorithm;
  std::vector<BatchSizeResult> batch_sizes;  // ascending
  std::vector<ScalingPoint> points;          // same order
  std::optional<CriticalBatchInterval> fit;
  std::optional<double> noise_scale;     // median over batch sizes of the best trials' values
};

struct ScalingReport {
  std::string workload;
  TrainingGoal goal;
  RegimeThresholds thresholds;
  std::vector<ScalingSeries> series;
};

ScalingReport read_scaling_study(const StudyStore& store, const std::vector<StudyRecord>& studies,
                                 const TrainingGoal& goal, const RegimeThresholds& thresholds = {},
                                 int bootstrap_resamples = 500);

std::string scaling_table_text(const ScalingReport& report);
// The numeric entries of a hyperparameter JSON object, e.g. "learning_rate=0.1 one_minus_beta1=0.05".
std::string hyperparameters_summary(const std::string& json, const std::string& separator = " ",
                                    const std::string& equals = "=");
// The report back from the scaling.json it was written to (`pacer report DIR`); InputError
// naming `origin` when the text is not such a file.
ScalingReport scaling_report_from_json(const std::string& text, const std::string& origin);
// scaling.json's text (`pacer scale --json` prints it): missing and infinite values are null.
std::string scaling_json_text(const ScalingReport& report);
// scaling.json, scaling.csv, steps_vs_batch_size.svg and report.html in `dir`.
void write_scaling_outputs(const ScalingReport& report, const std::string& dir);

}  // namespace pacer
