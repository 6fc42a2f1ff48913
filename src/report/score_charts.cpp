#include "report/score_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/atomic_file.h"
#include "report/svg_chart.h"

namespace pacer {

std::string profile_chart_svg(const ScoreResult& r) {
  LineChart chart;
  chart.id = "performance-profiles";
  chart.title = "Performance profiles (rules " + r.rules.name + ", " + std::to_string(r.base_workloads.size()) +
                " scored workload" + (r.base_workloads.size() == 1 ? "" : "s") + ")";
  chart.x_label = "tau: time ratio to the fastest submission";
  chart.y_label = "fraction of workloads within tau";
  chart.x_min = 1.0, chart.x_max = 4.0, chart.y_min = -0.02, chart.y_max = 1.02;
  for (size_t s = 0; s < r.submissions.size(); ++s) {
    ChartSeries series;
    char label[160];
    std::snprintf(label, sizeof(label), "%s (%.3f)", r.submissions[s].name.c_str(), r.submissions[s].score);
    series.name = label;
    series.color = palette_color(s);
    series.dashed = palette_dashed(s);
    series.step = true;
    for (size_t k = 0; k < r.tau.size(); ++k) series.points.push_back({r.tau[k], r.submissions[s].rho[k]});
    chart.series.push_back(series);
  }
  return chart.render();
}

std::string curve_chart_svg(const ScoreResult& r, size_t w) {
  const ScoringTarget& target = r.workloads[w];
  LineChart chart;
  chart.id = "curve-" + target.workload;
  chart.css_class = "curve";
  chart.title = target.workload + ": validation " + target.metric;
  chart.x_label = r.time_axis == TimeAxis::seconds ? "submission time (s)" : "global step";
  chart.y_label = "validation/" + target.metric;
  std::vector<double> values, ends;  // ends: each submission's last eval time
  for (size_t s = 0; s < r.submissions.size(); ++s) {
    ChartSeries series;
    series.name = r.submissions[s].name;
    series.color = palette_color(s);
    series.dashed = palette_dashed(s);
    for (const auto& p : r.submissions[s].workloads[w].curve) {
      series.points.push_back({p.time, p.value});
      values.push_back(p.value);
    }
    if (!series.points.empty()) ends.push_back(series.points.back().first);
    series.markers = series.points.size() <= 40;  // the evals, where they are few enough to see
    series.marker_size = 2.5;
    chart.series.push_back(series);
  }
  // Submissions whose runs differ tenfold in length (a fast and a slow one): a log time axis shows
  // both (decided on the runs' ends: every single run spans decades from its first eval).
  if (spans_decades(ends, 1.0)) {
    chart.log_x = true;
  } else {
    chart.x_min = 0.0;
  }
  if (!target.metric.empty()) {
    chart.hlines.push_back({target.validation_target, "target " + std::string(target.higher_is_better ? ">= " : "<= ") +
                                                          [&] {
                                                            char b[32];
                                                            std::snprintf(b, sizeof(b), "%.4g", target.validation_target);
                                                            return std::string(b);
                                                          }(),
                            "#444"});
  }
  // Early evals (a loss of 2.3 before training) would squash the interesting part near the
  // target: the y range covers the target and the better 90% of the values.
  if (values.size() >= 10) {
    std::sort(values.begin(), values.end());
    const size_t cut = values.size() / 10;
    double lo = target.higher_is_better ? values[cut] : values.front();
    double hi = target.higher_is_better ? values.back() : values[values.size() - 1 - cut];
    lo = std::min(lo, target.validation_target), hi = std::max(hi, target.validation_target);
    const double pad = 0.08 * (hi - lo);
    if (hi > lo) chart.y_min = lo - pad, chart.y_max = hi + pad;
  }
  return chart.render();
}

std::string chart_file_name(const std::string& workload) {
  std::string name = workload;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  }
  return "curves/" + name + ".svg";
}

void write_score_charts(const ScoreResult& r, const std::string& dir) {
  create_directories(dir + "/curves");
  write_file_atomic(dir + "/performance_profiles.svg", profile_chart_svg(r));
  for (size_t w = 0; w < r.workloads.size(); ++w) {
    write_file_atomic(dir + "/" + chart_file_name(r.workloads[w].workload), curve_chart_svg(r, w));
  }
}

}  // namespace pacer
