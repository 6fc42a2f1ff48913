#include "scale/scaling_page.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/format.h"
#include "report/html_page.h"
#include "report/svg_chart.h"
#include "report/xml_escape.h"

namespace pacer {
namespace {

std::optional<double> learning_rate_of(const std::string& hparams_json) {
  const auto j = nlohmann::json::parse(hparams_json, nullptr, false);
  if (!j.is_object() || !j.contains("learning_rate") || !j["learning_rate"].is_number()) return std::nullopt;
  const double lr = j["learning_rate"].get<double>();
  return lr > 0 ? std::optional<double>(lr) : std::nullopt;
}

std::string cell(const std::string& text) { return "<td>" + xml_escape(text) + "</td>"; }

// S(B) = S_min (1 + B_crit / B) over [b_lo, b_hi], and the envelope of the four corners of the
// bootstrap intervals of S_min and B_crit (a band from the marginal intervals, not a joint one).
void add_fit(LineChart& chart, const std::string& name, const std::string& color, const CriticalBatchInterval& f, double b_lo,
             double b_hi) {
  ChartSeries fitted{name + ": fit S_min (1 + B_crit/B)", color, {}, false};
  fitted.dashed = true;
  ChartBand band{name + ": fit, 95% intervals", color, {}, {}};
  for (int k = 0; k <= 48; ++k) {
    const double batch = b_lo * std::pow(b_hi / b_lo, k / 48.0);
    fitted.points.emplace_back(batch, f.fit.s_min * (1 + f.fit.b_crit / batch));
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (double sm : {f.s_min_low, f.s_min_high}) {
      for (double bc : {f.b_crit_low, f.b_crit_high}) {
        const double v = sm * (1 + bc / batch);
        if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
      }
    }
    if (std::isfinite(lo) && hi > 0) band.lower.emplace_back(batch, lo), band.upper.emplace_back(batch, hi);
  }
  chart.series.push_back(fitted);
  if (!band.lower.empty()) chart.bands.push_back(band);
}

// The axes span the measured batch sizes and the curves, not the bands (a wide bootstrap
// interval would squeeze the measurements into a corner); the band is cut at the plot's edge.
void fit_axes(LineChart& chart, double b_lo, double b_hi) {
  chart.x_min = b_lo / 1.1, chart.x_max = b_hi * 1.1;
  double y_lo = std::numeric_limits<double>::infinity(), y_hi = 0;
  for (const auto& series : chart.series) {
    for (const auto& [x, y] : series.points) {
      if (y > 0 && std::isfinite(y)) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  }
  if (std::isfinite(y_lo) && y_hi > 0) chart.y_min = y_lo / 1.25, chart.y_max = y_hi * 1.25;
}

}  // namespace

std::string scaling_plot_svg(const ScalingReport& report) {
  LineChart chart;
  chart.id = "steps-vs-batch-size";
  chart.title = "Steps to result vs batch size";
  chart.width = 900, chart.height = 420;  // room for the legend of fits and bands
  chart.x_label = "batch size";
  chart.y_label = "steps to " + report.goal.metric;
  chart.log_x = chart.log2_x = chart.log_y = true;
  std::optional<std::pair<double, double>> anchor;
  double b_lo = std::numeric_limits<double>::infinity(), b_hi = 0;
  for (const auto& s : report.series) {
    for (const auto& b : s.batch_sizes) {
      b_lo = std::min(b_lo, static_cast<double>(b.batch_size)), b_hi = std::max(b_hi, static_cast<double>(b.batch_size));
    }
  }
  // Marks inside the measured batch sizes are drawn; one outside (a fit at the edge of its search,
  // a noise scale beyond the sweep) is named in the title rather than stretching the axis.
  std::string off_chart;
  auto mark = [&](double b, const std::string& what, const std::string& series, const std::string& color) {
    if (!(b > 0) || !std::isfinite(b)) return;
    const std::string label =
        what + " " + format_double("%.0f", b) + (report.series.size() > 1 ? " (" + series + ")" : "");
    if (b >= b_lo && b <= b_hi) {
      chart.vlines.push_back({b, label, color});
    } else {
      off_chart += (off_chart.empty() ? "" : ", ") + label;
    }
  };
  for (size_t i = 0; i < report.series.size(); ++i) {
    const auto& s = report.series[i];
    const std::string& color = palette_color(i);
    ChartSeries line{s.name, color, {}, false};
    line.markers = true;  // the measured batch sizes
    for (const auto& b : s.batch_sizes) {
      if (!b.result.steps) continue;
      const double x = static_cast<double>(b.batch_size), y = static_cast<double>(*b.result.steps);
      line.points.emplace_back(x, y);
      if (!anchor) anchor = std::make_pair(x, y);
    }
    chart.series.push_back(line);
    if (s.fit && std::isfinite(b_lo) && b_hi > b_lo) {
      add_fit(chart, s.name, color, *s.fit, b_lo, b_hi);
      mark(s.fit->fit.b_crit, "B_crit", s.name, color);
    }
    if (s.noise_scale) mark(*s.noise_scale, "B_simple", s.name, "#777");
  }
  if (anchor && b_hi > anchor->first) {
    // Perfect scaling through the first measured point: steps halve as the batch doubles.
    ChartSeries perfect{"perfect scaling", "#999999", {*anchor, {b_hi, anchor->second * anchor->first / b_hi}}, false};
    perfect.dashed = true;
    chart.series.push_back(perfect);
  }
  if (std::isfinite(b_lo) && b_hi > 0) fit_axes(chart, b_lo, b_hi);
  if (!off_chart.empty()) chart.title += " (outside the measured batch sizes: " + off_chart + ")";
  return chart.render();
}

std::string learning_rate_plot_svg(const ScalingReport& report) {
  LineChart chart;
  chart.id = "learning-rate-vs-batch-size";
  chart.title = "Best trial's learning rate vs batch size";
  chart.x_label = "batch size";
  chart.y_label = "learning rate";
  chart.log_x = chart.log2_x = chart.log_y = true;
  bool any = false;
  for (size_t i = 0; i < report.series.size(); ++i) {
    const auto& s = report.series[i];
    ChartSeries line{s.name, palette_color(i), {}, false};
    line.markers = true;
    for (const auto& b : s.batch_sizes) {
      if (!b.result.trial_id) continue;
      if (auto lr = learning_rate_of(b.best_hparams)) {
        line.points.emplace_back(static_cast<double>(b.batch_size), *lr);
        any = true;
      }
    }
    chart.series.push_back(line);
  }
  return any ? chart.render() : std::string();
}

std::string render_scaling_html(const ScalingReport& report) {
  std::ostringstream h;
  const std::string goal = report.goal.metric + (report.goal.higher_is_better ? " > " : " < ") +
                           format_double("%g", report.goal.value);
  h << html_page_head("Pacer scaling study: " + report.workload,
                      ".never{color:#a00}.perfect{background:#e6f4e6}.diminishing{background:#fff6dd}"
                      ".maximal{background:#fbe3e3}");
  h << "<h1>Batch-size scaling: " << xml_escape(report.workload) << "</h1>";
  h << "<p>Steps to the first evaluation with " << xml_escape(goal)
    << ", over the non-diverged trials of a quasi-random search at each batch size (metaparameters retuned "
       "at every batch size).</p>";
  h << scaling_plot_svg(report);
  if (const std::string lr = learning_rate_plot_svg(report); !lr.empty()) h << lr;

  h << "<h2>Critical batch size</h2><table id=\"critical-batch\"><tr><th>series</th><th>algorithm</th>"
       "<th>S_min (steps)</th><th>95% interval</th><th>B_crit</th><th>95% interval</th><th>rms log error</th>"
       "<th>noise scale B_simple</th></tr>";
  for (const auto& s : report.series) {
    h << "<tr><td class=\"l\">" << xml_escape(s.name) << "</td><td class=\"l\">" << xml_escape(s.algorithm) << "</td>";
    if (s.fit) {
      h << cell(format_double("%.0f", s.fit->fit.s_min))
        << cell(format_double("%.0f", s.fit->s_min_low) + " - " + format_double("%.0f", s.fit->s_min_high))
        << cell(format_double("%.0f", s.fit->fit.b_crit))
        << cell(format_double("%.0f", s.fit->b_crit_low) + " - " + format_double("%.0f", s.fit->b_crit_high))
        << cell(format_double("%.3f", s.fit->fit.rms_log_error));
    } else {
      h << "<td colspan=\"5\" class=\"l\">fewer than three batch sizes reached the goal</td>";
    }
    h << cell(s.noise_scale ? format_double("%.0f", *s.noise_scale) : "-") << "</tr>";
  }
  h << "</table><p>Fit of S(B) = S_min (1 + B_crit / B) by least squares on ln S; intervals from bootstrap "
       "resamples of the trials at each batch size. B_simple: the gradient noise scale tr(&Sigma;)/|G|&sup2; "
       "logged by the best trials where they reached the goal (median over batch sizes).</p>";

  for (const auto& s : report.series) {
    h << "<h2>" << xml_escape(s.name) << "</h2><table class=\"scaling-table\"><tr><th>batch size</th>"
         "<th>step budget</th><th>steps to result</th><th>best trial (DIR/logs/)</th><th>efficiency</th><th>regime</th>"
         "<th>trials</th><th>diverged</th><th>missed goal</th><th>noise scale</th><th>best metaparameters</th></tr>";
    for (size_t i = 0; i < s.batch_sizes.size(); ++i) {
      const auto& b = s.batch_sizes[i];
      const auto& p = s.points[i];
      const char* regime_class = p.regime == ScalingRegime::perfect       ? "perfect"
                                 : p.regime == ScalingRegime::diminishing ? "diminishing"
                                 : p.regime == ScalingRegime::maximal     ? "maximal"
                                                                          : "";
      h << "<tr>" << cell(std::to_string(b.batch_size)) << cell(std::to_string(b.step_budget))
        << (b.result.steps ? cell(std::to_string(*b.result.steps)) : "<td class=\"never\">never</td>")
        << cell(!b.best_trial_folder.empty() ? b.best_trial_folder
                : b.result.trial_id          ? std::to_string(*b.result.trial_id)
                                             : "-")
        << cell(p.efficiency ? format_double("%.2f", *p.efficiency) : "-") << "<td class=\"l " << regime_class << "\">"
        << xml_escape(to_string(p.regime)) << "</td>"
        << cell(std::to_string(b.result.trials) + (b.pending ? " (+" + std::to_string(b.pending) + " pending)" : ""))
        << cell(std::to_string(b.result.diverged))
        << cell(std::to_string(b.result.trials - b.result.diverged - b.result.reached))
        << cell(b.noise_scale ? format_double("%.0f", *b.noise_scale) : "-") << "<td class=\"l\">"
        << xml_escape(b.result.trial_id ? hyperparameters_summary(b.best_hparams, ", ", " = ") : "") << "</td></tr>";
    }
    h << "</table>";
  }
  h << "<p>Regimes: perfect scaling if the efficiency (log-log slope ln(S(B1)/S(B2)) / ln(B2/B1) from the "
       "previous batch size) is at least "
    << report.thresholds.perfect << ", maximal data parallelism if below " << report.thresholds.maximal
    << ", diminishing returns in between.</p></body></html>\n";
  return h.str();
}

void write_scaling_report(const std::string& dir, const std::string& out_file) {
  const std::string path = dir + "/scaling.json";
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read (not a folder written by `pacer scale --out`)");
  std::stringstream text;
  text << in.rdbuf();
  write_file_atomic(out_file, render_scaling_html(scaling_report_from_json(text.str(), path)));
}

}  // namespace pacer
