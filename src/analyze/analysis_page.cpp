#include "analyze/analysis_page.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/format.h"
#include "report/html_page.h"
#include "report/svg_chart.h"
#include "report/xml_escape.h"

namespace pacer {
namespace {

const char* kInfeasibleColor = "#CC0000";

std::string cell(const std::string& text, const std::string& css_class = "") {
  return (css_class.empty() ? "<td>" : "<td class=\"" + css_class + "\">") + xml_escape(text) + "</td>";
}

std::string id_safe(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out;
}

// Hyperparameter names: the space's order first, then any other name the trials set.
std::vector<std::string> hyperparameter_names(const StudyData& d) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  if (d.space) {
    for (const auto& n : d.space->names()) {
      if (seen.insert(n).second) names.push_back(n);
    }
  }
  for (const auto& t : d.trials) {
    for (const auto& [n, v] : t.hparams) {
      if (seen.insert(n).second) names.push_back(n);
    }
  }
  // Names no trial sets (e.g. a list space's absent keys) have nothing to plot.
  names.erase(std::remove_if(names.begin(), names.end(),
                             [&](const std::string& n) {
                               return std::none_of(d.trials.begin(), d.trials.end(),
                                                   [&](const TrialData& t) { return t.hparam(n).has_value(); });
                             }),
              names.end());
  return names;
}

const SearchDimension* dimension_of(const StudyData& d, const std::string& name) {
  if (!d.space) return nullptr;
  for (const auto& dim : d.space->dimensions) {
    if (dim.name == name) return &dim;
  }
  return nullptr;
}

std::optional<size_t> best_index(const StudyData& d) {
  const auto ranked = d.ranked_feasible();
  return ranked.empty() ? std::nullopt : std::optional<size_t>(ranked.front());
}

}  // namespace

std::string best_of_k_svg(const StudyAnalysis& a) {
  const auto& b = a.best_of_k;
  LineChart chart;
  chart.id = "best-of-k";
  chart.title = "Expected best of k trials (bootstrap): " + b.verdict;
  chart.x_label = "k (trials)";
  chart.y_label = "best " + a.data.objective_metric;
  ChartSeries expected{"expected best", palette_color(0), {}, false};
  ChartSeries low{"10th percentile", "#9ecae1", {}, false};
  ChartSeries high{"90th percentile", "#9ecae1", {}, false};
  for (const auto& p : b.points) {
    expected.points.emplace_back(p.k, p.expected);
    low.points.emplace_back(p.k, p.p10);
    high.points.emplace_back(p.k, p.p90);
  }
  chart.series = {high, expected, low};
  chart.x_min = 1;
  chart.x_max = std::max(2, b.n);
  return chart.render();
}

std::string axis_plot_svg(const StudyAnalysis& a, const std::string& name) {
  const StudyData& d = a.data;
  const SearchDimension* dim = dimension_of(d, name);
  LineChart chart;
  chart.id = "axis-" + id_safe(name);
  chart.css_class = "axis-plot";
  chart.title = d.objective_metric + " vs " + name;
  chart.x_label = name;
  chart.y_label = d.objective_metric;
  chart.width = 560, chart.height = 320;
  const bool log = dim && dim->kind == SearchDimension::Kind::range && dim->scaling == Scaling::log;
  chart.log_x = log;
  // y range from the feasible objectives; infeasible trials sit in a band below them.
  double lo = INFINITY, hi = -INFINITY, x_lo = INFINITY, x_hi = -INFINITY;
  for (const auto& t : d.trials) {
    const auto v = t.hparam(name);
    if (!v || (log && *v <= 0)) continue;
    x_lo = std::min(x_lo, *v), x_hi = std::max(x_hi, *v);
    if (t.feasible()) lo = std::min(lo, *t.objective), hi = std::max(hi, *t.objective);
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  double span = hi - lo;
  if (!(span > 0)) span = std::abs(hi) > 0 ? 0.1 * std::abs(hi) : 1.0;
  chart.y_min = lo - 0.14 * span;
  chart.y_max = hi + 0.06 * span;
  const double floor_y = lo - 0.08 * span;
  // x range: the space's range where there is one (so a boundary shows), padded so edge markers show.
  if (dim && dim->kind == SearchDimension::Kind::range && dim->max > dim->min) {
    x_lo = std::min(x_lo, dim->min), x_hi = std::max(x_hi, dim->max);
  }
  if (std::isfinite(x_lo)) {
    if (log) {
      const double pad = std::pow(x_hi / x_lo, 0.04);
      chart.x_min = x_lo / (pad > 1 ? pad : 1.5), chart.x_max = x_hi * (pad > 1 ? pad : 1.5);
    } else {
      const double pad = x_hi > x_lo ? 0.04 * (x_hi - x_lo) : (std::abs(x_hi) > 0 ? 0.1 * std::abs(x_hi) : 1.0);
      chart.x_min = x_lo - pad, chart.x_max = x_hi + pad;
    }
  }
  ChartSeries feasible{"feasible", palette_color(0), {}, false, true, "circle"};
  ChartSeries infeasible{"infeasible", kInfeasibleColor, {}, false, true, "cross"};
  ChartSeries best{"best trial", palette_color(1), {}, false, true, "ring", 7.0};
  const auto best_at = best_index(d);
  for (size_t i = 0; i < d.trials.size(); ++i) {
    const auto& t = d.trials[i];
    const auto v = t.hparam(name);
    if (!v) continue;
    if (t.feasible()) feasible.points.emplace_back(*v, *t.objective);
    else infeasible.points.emplace_back(*v, floor_y);
    if (best_at && *best_at == i) best.points.emplace_back(*v, *t.objective);
  }
  for (auto* s : {&feasible, &infeasible, &best}) {
    std::stable_sort(s->points.begin(), s->points.end());
    if (!s->points.empty()) chart.series.push_back(*s);
  }
  return chart.render();
}

std::string isolation_svg(const StudyAnalysis& a) {
  if (!a.isolation) return "";
  const auto& iso = *a.isolation;
  LineChart chart;
  chart.id = "isolation";
  chart.title = "Isolation: best " + a.data.objective_metric + " per study, by " + iso.name;
  chart.x_label = iso.name;
  chart.y_label = "best " + a.data.objective_metric;
  chart.x_min = -0.5;
  chart.x_max = static_cast<double>(iso.groups.size()) - 0.5;
  ChartSeries studies{"study best", "#999999", {}, false, true, "circle", 3.0};
  ChartSeries mean{"mean (bar: min-max)", palette_color(0), {}, false, true, "square", 5.0};
  for (size_t i = 0; i < iso.groups.size(); ++i) {
    const auto& grp = iso.groups[i];
    chart.x_tick_labels.emplace_back(static_cast<double>(i), grp.value);
    for (const auto& [study, best] : grp.studies) {
      if (best) studies.points.emplace_back(static_cast<double>(i) + 0.12, *best);
    }
    if (grp.mean) {
      mean.points.emplace_back(static_cast<double>(i), *grp.mean);
      mean.y_bars.emplace_back(*grp.min, *grp.max);
    }
  }
  chart.series = {mean, studies};
  return chart.render();
}

std::string curve_svg(const StudyAnalysis& a, size_t index) {
  return curve_diagnosis_svg(a.curves.at(index), a.data.objective_metric, "curve-" + std::to_string(index + 1));
}

std::string curve_diagnosis_svg(const CurveDiagnosis& c, const std::string& objective_metric, const std::string& id) {
  LineChart chart;
  chart.id = id;
  chart.css_class = "curve";
  chart.title = c.trial + (c.objective ? " (" + objective_metric + " " + format_4g(*c.objective) + ")" : "");
  chart.x_label = "global step";
  chart.width = 560, chart.height = 300;
  const bool losses = !c.train_loss.empty() || !c.validation_loss.empty();
  if (losses) {
    chart.y_label = "loss";
    if (!c.train_loss.empty()) chart.series.push_back({"train/loss", palette_color(0), c.train_loss, false});
    if (!c.validation_loss.empty()) chart.series.push_back({"validation/loss", palette_color(1), c.validation_loss, false});
  } else {
    chart.y_label = objective_metric;
    chart.series.push_back({objective_metric, palette_color(1), c.objective_curve, false});
  }
  // The retrospectively selected checkpoint, on the validation curve shown.
  const CurveSeries& shown = losses ? (c.validation_loss.empty() ? c.train_loss : c.validation_loss) : c.objective_curve;
  for (const auto& [step, value] : shown) {
    if (static_cast<int64_t>(step) == c.best_step && !c.objective_curve.empty()) {
      chart.series.push_back({"best checkpoint", palette_color(2), {{step, value}}, false, true, "ring", 6.0});
      break;
    }
  }
  return chart.render();
}

namespace {

// The isolation of the scientific hyperparameter: its plot and one row per value.
void write_isolation(std::ostringstream& h, const StudyAnalysis& a) {
  const auto& iso = *a.isolation;
  h << "<h2>Isolation: " << xml_escape(iso.name) << "</h2>" << isolation_svg(a);
  h << "<table id=\"isolation\"><tr><th>" << xml_escape(iso.name)
    << "</th><th>studies</th><th>mean best</th><th>min</th><th>max</th><th>per study</th></tr>";
  for (const auto& grp : iso.groups) {
    std::string per;
    for (const auto& [study, best] : grp.studies) per += (per.empty() ? "" : ", ") + (best ? format_4g(*best) : "-");
    h << "<tr>" << cell(grp.value, "l") << cell(std::to_string(grp.studies.size()))
      << cell(grp.mean ? format_4g(*grp.mean) : "-") << cell(grp.min ? format_4g(*grp.min) : "-") << cell(grp.max ? format_4g(*grp.max) : "-")
      << cell(per, "l") << "</tr>";
  }
  h << "</table><p>" << xml_escape(iso.verdict) << "</p>";
}

// The best trials' curves, each with its verdicts.
void write_curves(std::ostringstream& h, const StudyAnalysis& a) {
  h << "<h2>Training curves of the best trials</h2><div id=\"curves\">";
  for (size_t i = 0; i < a.curves.size(); ++i) {
    const auto& c = a.curves[i];
    h << "<div>" << curve_svg(a, i) << "<p class=\"verdicts\">";
    for (const auto& v : c.verdicts) h << "<b>" << xml_escape(v) << "</b><br>";
    h << "Best eval at step " << c.best_step << " (" << format_4g(c.best_value) << "), final step " << c.final_step << " ("
      << format_4g(c.final_value) << ")";
    if (!c.note.empty()) h << "<br>" << xml_escape(c.note);
    h << "</p></div>";
  }
  h << "</div>";
}

// The hyperparameters ranked by eta squared, with their bins.
void write_importance(std::ostringstream& h, const Importance& importance) {
  h << "<h2>Most influential hyperparameters</h2><table id=\"importance\"><tr><th>hyperparameter</th><th>eta&sup2;</th>"
       "<th>chance level</th><th>bins: value range &rarr; mean objective (infeasible share)</th></tr>";
  if (!importance.meaningful) {
    h << "<tr><td class=\"l\" colspan=\"4\">" << xml_escape(importance.note) << "</td></tr>";
  }
  for (const auto& imp : importance.ranked) {
    std::string bins;
    for (const auto& b : imp.bins) {
      bins += (bins.empty() ? "" : "; ") + format_4g(b.low) + "-" + format_4g(b.high) + " -> " + format_4g(b.mean_objective) + " (" +
              format_double("%.0f", 100 * b.infeasible_fraction()) + "%)";
    }
    h << "<tr>" << cell(imp.name, "l") << cell(format_double("%.3f", imp.eta_squared))
      << cell(format_double("%.3f", imp.chance_level)) << cell(bins, "l") << "</tr>";
  }
  h << "</table><p>eta&sup2;: the share of the objective's variance (feasible trials) explained by quantile bins of "
       "the hyperparameter; about the chance level for a hyperparameter that does not matter.</p>";
}

}  // namespace

std::string render_analysis_html(const StudyAnalysis& a) {
  const StudyData& d = a.data;
  std::ostringstream h;
  h << html_page_head("Pacer study analysis: " + d.selector,
                      "tr.best td{background:#fff3d6}tr.infeasible td{color:#a00}ul#verdicts li{margin:0.3em 0}"
                      "ul#verdicts li.verdict-boundary b,ul#verdicts li.verdict-infeasible b{color:#a40}"
                      "ul#verdicts .detail{color:#666;font-size:85%}"
                      "div#axis-plots,div#curves{display:flex;flex-wrap:wrap;gap:8px}.verdicts{font-size:90%;margin:0 0 1em}",
                      1200);
  h << "<h1>Study analysis: " << xml_escape(d.selector) << "</h1>";
  h << "<p>Objective: the best <b>" << xml_escape(d.objective_metric) << "</b> over each trial's evals ("
    << (d.higher_is_better ? "higher" : "lower") << " is better). " << a.finished << " finished trials: " << a.feasible
    << " feasible, " << a.infeasible << " infeasible (diverged or failed)";
  if (d.unfinished > 0) h << "; " << d.unfinished << " not finished, left out";
  h << ".</p>";

  h << "<h2>Verdicts</h2><ul id=\"verdicts\">";
  for (const auto& v : a.verdicts) {
    h << "<li class=\"verdict-" << xml_escape(v.check) << "\"><b>" << xml_escape(v.text) << "</b>";
    if (!v.detail.empty()) h << "<br><span class=\"detail\">" << xml_escape(v.detail) << "</span>";
    h << "</li>";
  }
  h << "</ul>";

  h << "<h2>Have we sampled enough?</h2>" << best_of_k_svg(a)
    << "<p>Expected best objective of k trials drawn with replacement from the finished ones (infeasible trials "
       "count as the worst), with the 10th-90th percentile band. Still rising over the last half of k (more than "
       "10% of its total gain): more trials would likely help; flat: saturated.</p>";

  const auto names = hyperparameter_names(d);
  h << "<h2>Axis plots</h2><p>Objective vs each hyperparameter (log x for log ranges, the x axis spans the "
       "search space). Red crosses along the bottom: infeasible trials; ringed: the best trial. Best trials in the "
       "outer 10% of a range: widen the range that way.</p><div id=\"axis-plots\">";
  for (const auto& n : names) h << axis_plot_svg(a, n);
  h << "</div>";

  if (a.isolation) write_isolation(h, a);
  write_curves(h, a);
  write_importance(h, a.importance);
  h << "<h2>Trials</h2><table id=\"trials\"><tr><th>study</th><th>trial</th><th>status</th><th>"
    << xml_escape(d.objective_metric) << "</th>";
  for (const auto& n : names) h << "<th>" << xml_escape(n) << "</th>";
  h << "</tr>";
  const auto best_at = best_index(d);
  for (size_t i = 0; i < d.trials.size(); ++i) {
    const auto& t = d.trials[i];
    const char* row_class = best_at && *best_at == i ? " class=\"best\"" : (t.feasible() ? "" : " class=\"infeasible\"");
    h << "<tr" << row_class << ">" << cell(t.study, "l") << cell(std::to_string(t.record.index)) << cell(to_string(t.record.status), "l")
      << cell(t.objective ? format_4g(*t.objective) : "infeasible");
    for (const auto& n : names) {
      const auto v = t.hparam(n);
      h << cell(v ? format_4g(*v) : "-");
    }
    h << "</tr>";
  }
  h << "</table></body></html>\n";
  return h.str();
}

void write_study_analysis(const StudyAnalysis& analysis, const std::string& out_dir) {
  create_directories(out_dir);
  write_file_atomic(out_dir + "/analysis.json", study_analysis_json(analysis));
  write_file_atomic(out_dir + "/analysis.html", render_analysis_html(analysis));
}

}  // namespace pacer
