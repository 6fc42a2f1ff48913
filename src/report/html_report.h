#pragma once
// `pacer report`: one self-contained HTML page (inline CSS and SVG; no scripts, no network) from
// the folder `pacer score --out DIR` wrote: leaderboard (table#leaderboard), performance profiles
// (svg#performance-profiles), time-to-target table (table#time-to-target), one training-curve
// chart per workload (svg.curve inside div#curves) and the scoring warnings.
//
//   std::string html = pacer::render_report_html("runs/leaderboard");
//   pacer::write_report("runs/leaderboard", "runs/leaderboard/report.html");
#include <string>

namespace pacer {

// InputError when DIR lacks scores.json or a chart it names.
std::string render_report_html(const std::string& score_dir);
void write_report(const std::string& score_dir, const std::string& out_file);

}  // namespace pacer
