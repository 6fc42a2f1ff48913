#pragma once
// Every check of the tuning playbook's study analysis on one selection, as verdicts with evidence:
// the infeasible share, search-space boundaries (boundary_check.h), sampling density
// (best_of_k.h), the training curves of the best trials with retrospective checkpoint selection
// (curve_diagnosis.h), hyperparameter importance (hyperparameter_importance.h) and, for rounds
// of a scientific hyperparameter, the isolation comparison (isolation.h). Torch-free.
// Verdicts beyond those of the checks' headers: "most trials are infeasible: shrink the space..."
// when at least half of the finished trials diverged or failed ("k of n trials infeasible" below
// that); "most influential: <name>" when the top hyperparameter's eta^2 is at least twice its
// chance level, else "no hyperparameter stands out from noise"; one "<trial>: <verdict>" per curve
// verdict of the best trials ("<trial>: no curve problem" when none).
//
//   pacer::StudyAnalysis a = pacer::analyze_study(pacer::load_study_data(store, "nadamw/fmnist_mlp"));
//   std::fputs(pacer::format_study_analysis(a).c_str(), stdout);
//   pacer::write_file_atomic("analysis.json", pacer::study_analysis_json(a));
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/best_of_k.h"
#include "analyze/boundary_check.h"
#include "analyze/curve_diagnosis.h"
#include "analyze/hyperparameter_importance.h"
#include "analyze/isolation.h"
#include "analyze/study_data.h"

namespace pacer {

struct AnalysisOptions {
  int resamples = 1000;  // best-of-k bootstrap
  uint64_t seed = 0;
  int best_curves = 3;   // training curves of this many best trials
};

struct AnalysisVerdict {
  std::string check;   // infeasible, boundary, best_of_k, curve, importance, isolation, unfinished
  std::string text;    // "expand learning_rate upwards"
  std::string detail;  // the evidence in words
};

struct StudyAnalysis {
  StudyData data;
  AnalysisOptions options;
  size_t finished = 0, feasible = 0, infeasible = 0;
  BoundaryCheck boundaries;
  BestOfK best_of_k;
  std::vector<CurveDiagnosis> curves;  // best trials first
  Importance importance;
  std::optional<Isolation> isolation;
  std::vector<AnalysisVerdict> verdicts;
};

// InputError when the data has no finished trial.
StudyAnalysis analyze_study(StudyData data, const AnalysisOptions& options = {});
std::string study_analysis_json(const StudyAnalysis& analysis);    // the analysis.json text
std::string format_study_analysis(const StudyAnalysis& analysis);  // a short text report

}  // namespace pacer
