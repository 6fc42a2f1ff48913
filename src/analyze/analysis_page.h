#pragma once
// The study analysis as one self-contained HTML page (inline CSS and SVG, no scripts, no network):
// the verdicts (ul#verdicts), every trial (table#trials), the best-of-k curve (svg#best-of-k),
// one axis plot per hyperparameter (svg.axis-plot in div#axis-plots: objective vs value, log x
// for log ranges, infeasible trials as red crosses along the bottom edge, the best trial ringed),
// the isolation plot and table of a scientific hyperparameter (svg#isolation, table#isolation),
// the training curves of the best trials (svg.curve in div#curves) and the hyperparameter
// importance (table#importance).
//
//   pacer::write_study_analysis(analysis, "runs/analysis");  // analysis.json + analysis.html
#include <string>

#include "analyze/study_analysis.h"

namespace pacer {

std::string best_of_k_svg(const StudyAnalysis& analysis);
std::string axis_plot_svg(const StudyAnalysis& analysis, const std::string& hyperparameter);
std::string isolation_svg(const StudyAnalysis& analysis);  // empty without a scientific hyperparameter
std::string curve_svg(const StudyAnalysis& analysis, size_t curve_index);
// The same chart for any one trial's diagnosis (pacer serve's trial page), <svg id="ID" class="curve">.
std::string curve_diagnosis_svg(const CurveDiagnosis& curve, const std::string& objective_metric, const std::string& id);
std::string render_analysis_html(const StudyAnalysis& analysis);
// Writes OUT_DIR/analysis.json and OUT_DIR/analysis.html (creating OUT_DIR).
void write_study_analysis(const StudyAnalysis& analysis, const std::string& out_dir);

}  // namespace pacer
