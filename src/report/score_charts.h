#pragma once
// The charts of a scoring result: the performance profiles (one line per submission, tau on x,
// fraction of workloads on y) and, per workload, the training curves (validation metric against
// time, the target as a dashed line). Colours follow the leaderboard order in every chart.
//
//   pacer::ScoreResult r = pacer::score_submissions(source, options);
//   pacer::write_score_charts(r, "runs/leaderboard");  // performance_profiles.svg, curves/<w>.svg
#include <string>

#include "score/scoring.h"

namespace pacer {

std::string profile_chart_svg(const ScoreResult& result);                    // <svg id="performance-profiles">
std::string curve_chart_svg(const ScoreResult& result, size_t workload);     // <svg id="curve-<workload>" class="curve">
std::string chart_file_name(const std::string& workload);                    // "curves/<workload>.svg", sanitized
void write_score_charts(const ScoreResult& result, const std::string& dir);

}  // namespace pacer
