#include "scale/scaling_page.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/format.h"
#include "report/html_page.h"
#include "report/svg_chart.h"

namespace pacer {
namespace {

std::optional<double> learning_rate_of(const std::string& hparams_json) {
  const auto j = nlohmann::json::parse(hparams_json, nullptr, false);
  if (!j.is_object() || !j.contains("learning_rate") || !j["learning_rate"].is_number()) return std::nullopt;
  const double lr = j["learning_rate"].get<double>();
  return lr > 0 ? std::optional<double>(lr) : std::nullopt;
}

std::string cell(const std::string& text) { return "<td>" + xml_escape(text) + "</td>"; }

}  // namespace

std::string scaling_plot_svg(const ScalingReport& report) {
  LineChart chart;
  chart.id = "steps-vs-batch-size";
  chart.title = "Steps to result vs batch size (log2 axes)";
  chart.x_label = "log2(batch size)";
  chart.y_label = "log2(steps to " + report.goal.metric + ")";
  std::optional<std::pair<double, double>> anchor;
  double x_max = 0;
  for (size_t i = 0; i < report.series.size(); ++i) {
    const auto& s = report.series[i];
    ChartSeries line{s.name, palette_color(i), {}, false};
    for (const auto& b : s.batch_sizes) {
      x_max = std::max(x_max, std::log2(static_cast<double>(b.batch_size)));
      if (!b.result.steps) continue;
      const double x = std::log2(static_cast<double>(b.batch_size)), y = std::log2(static_cast<double>(*b.result.steps));
      line.points.emplace_back(x, y);
      if (!anchor) anchor = std::make_pair(x, y);
    }
    chart.series.push_back(line);
  }
  if (anchor) {
    // Perfect scaling through the first measured point: slope -1 in log-log.
    ChartSeries perfect{"perfect scaling", "#999999", {*anchor, {x_max, anchor->second - (x_max - anchor->first)}}, false};
    chart.series.push_back(perfect);
  }
  return chart.render();
}

std::string learning_rate_plot_svg(const ScalingReport& report) {
  LineChart chart;
  chart.id = "learning-rate-vs-batch-size";
  chart.title = "Best trial's learning rate vs batch size";
  chart.x_label = "log2(batch size)";
  chart.y_label = "log10(learning rate)";
  bool any = false;
  for (size_t i = 0; i < report.series.size(); ++i) {
    const auto& s = report.series[i];
    ChartSeries line{s.name, palette_color(i), {}, false};
    for (const auto& b : s.batch_sizes) {
      if (!b.result.trial_id) continue;
      if (auto lr = learning_rate_of(b.best_hparams)) {
        line.points.emplace_back(std::log2(static_cast<double>(b.batch_size)), std::log10(*lr));
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
         "<th>step budget</th><th>steps to result</th><th>best trial</th><th>efficiency</th><th>regime</th>"
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
        << cell(b.result.trial_id ? std::to_string(*b.result.trial_id) : "-")
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
