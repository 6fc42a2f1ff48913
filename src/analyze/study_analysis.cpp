#include "analyze/study_analysis.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/format.h"

namespace pacer {
namespace {

using Json = nlohmann::ordered_json;

Json optional_json(const std::optional<double>& v) { return v && std::isfinite(*v) ? Json(*v) : Json(); }

Json series_json(const CurveSeries& s) {
  Json out = Json::array();
  for (const auto& [x, y] : s) out.push_back({x, y});
  return out;
}

std::string hparams_text(const TrialData& t) {
  std::string out;
  for (const auto& [name, value] : t.hparams) out += (out.empty() ? "" : ", ") + name + "=" + format_4g(value);
  for (const auto& [name, value] : t.text_hparams) out += (out.empty() ? "" : ", ") + name + "=" + value;
  return out;
}

// ---- Each check's verdicts, with the evidence they cite.
using Verdicts = std::vector<AnalysisVerdict>;

void add_boundary_verdicts(const BoundaryCheck& boundaries, Verdicts& v) {
  for (const auto& dim : boundaries.dimensions) {
    if (dim.verdict.empty()) continue;
    std::string detail;
    for (const auto& p : dim.best) {
      detail += (detail.empty() ? "" : "; ") + p.trial + ": " + dim.name + "=" + format_4g(p.value) + " (u=" +
                format_double("%.2f", p.unit) + ", objective " + format_4g(p.objective) + ")";
    }
    v.push_back({"boundary", dim.verdict,
                 "best trials in [" + format_4g(dim.min) + ", " + format_4g(dim.max) + "]" + (dim.log ? " log" : "") +
                     ": " + detail});
  }
}

std::string best_of_k_detail(const BestOfK& b) {
  std::string detail = std::to_string(b.n) + " finished trials";
  if (!b.points.empty()) {
    detail += "; expected best of 1: " + format_4g(b.points.front().expected) + ", of " + std::to_string(b.n) + ": " +
              format_4g(b.points.back().expected) + "; gain over the last half of k: " + format_4g(b.late_gain) + " of " +
              format_4g(b.total_gain) + " (bootstrap, " + std::to_string(b.resamples) + " resamples)";
  }
  return detail;
}

void add_curve_verdicts(const CurveDiagnosis& c, Verdicts& v) {
  std::string detail = "best eval at step " + std::to_string(c.best_step) + " (" + format_4g(c.best_value) +
                       ") vs final step " + std::to_string(c.final_step) + " (" + format_4g(c.final_value) + ")";
  if (!c.note.empty()) detail += "; " + c.note;
  if (c.verdicts.empty()) v.push_back({"curve", c.trial + ": no curve problem", detail});
  for (const auto& verdict : c.verdicts) v.push_back({"curve", c.trial + ": " + verdict, detail});
}

void add_importance_verdict(const Importance& importance, Verdicts& v) {
  if (!importance.meaningful) {
    v.push_back({"importance", "too few feasible trials to rank hyperparameters", importance.note});
    return;
  }
  if (importance.ranked.empty()) return;
  const auto& top = importance.ranked.front();
  std::string detail;
  for (const auto& h : importance.ranked) detail += (detail.empty() ? "" : ", ") + h.name + " " + format_double("%.2f", h.eta_squared);
  detail += " (eta^2; chance level about " + format_double("%.2f", top.chance_level) + ")";
  v.push_back({"importance", above_chance(top) ? "most influential: " + top.name : "no hyperparameter stands out from noise",
               detail});
}

std::string isolation_detail(const Isolation& isolation) {
  std::string detail;
  for (const auto& grp : isolation.groups) {
    detail += (detail.empty() ? "" : "; ") + isolation.name + "=" + grp.value + ": " +
              (grp.mean ? "mean " + format_4g(*grp.mean) + " [" + format_4g(*grp.min) + ", " + format_4g(*grp.max) + "]"
                        : "no feasible trial") +
              " over " + std::to_string(grp.studies.size()) + (grp.studies.size() == 1 ? " study" : " studies");
  }
  return detail;
}

// ---- The checks' parts of analysis.json, one function each.
Json boundaries_json(const BoundaryCheck& check) {
  Json b;
  b["best_trials"] = check.best_count;
  b["skipped"] = check.skip_reason.empty() ? Json() : Json(check.skip_reason);
  Json dims = Json::array();
  for (const auto& dim : check.dimensions) {
    Json dj;
    dj["name"] = dim.name;
    dj["checked"] = dim.checked;
    if (!dim.checked) dj["skipped"] = dim.skip_reason;
    else {
      dj["min"] = dim.min, dj["max"] = dim.max, dj["scaling"] = dim.log ? "log" : "linear";
      Json best = Json::array();
      for (const auto& p : dim.best) {
        best.push_back({{"trial", p.trial}, {"value", p.value}, {"unit", p.unit}, {"objective", p.objective}});
      }
      dj["best"] = best;
    }
    dj["verdict"] = dim.verdict.empty() ? Json() : Json(dim.verdict);
    dims.push_back(dj);
  }
  b["dimensions"] = dims;
  return b;
}

Json best_of_k_json(const BestOfK& k) {
  Json b;
  b["verdict"] = k.verdict;
  b["n"] = k.n, b["infeasible"] = k.infeasible, b["resamples"] = k.resamples, b["seed"] = k.seed;
  b["total_gain"] = k.total_gain, b["late_gain"] = k.late_gain;
  Json points = Json::array();
  for (const auto& p : k.points) points.push_back({{"k", p.k}, {"expected", p.expected}, {"p10", p.p10}, {"p90", p.p90}});
  b["points"] = points;
  return b;
}

Json curve_json(const CurveDiagnosis& c) {
  Json cj;
  cj["trial"] = c.trial;
  cj["study"] = c.study;
  cj["objective"] = optional_json(c.objective);
  cj["verdicts"] = c.verdicts;
  cj["note"] = c.note;
  cj["checkpoint"] = {{"best_step", c.best_step}, {"best_value", c.best_value}, {"final_step", c.final_step},
                      {"final_value", c.final_value}, {"best_fraction", c.best_fraction}};
  cj["evidence"] = {{"validation_loss_min", optional_json(c.validation_loss_min)},
                    {"validation_loss_min_step", optional_json(c.validation_loss_min_step)},
                    {"validation_loss_late_median", optional_json(c.validation_loss_late)},
                    {"train_loss_at_min", optional_json(c.train_loss_at_min)},
                    {"train_loss_late_median", optional_json(c.train_loss_late)},
                    {"late_noise", optional_json(c.late_noise)},
                    {"improvement", optional_json(c.improvement)}};
  cj["train_loss"] = series_json(c.train_loss);
  cj["validation_loss"] = series_json(c.validation_loss);
  cj["objective_curve"] = series_json(c.objective_curve);
  return cj;
}

Json importance_json(const Importance& importance) {
  Json imp;
  imp["meaningful"] = importance.meaningful;
  imp["note"] = importance.note;
  imp["feasible"] = importance.feasible;
  Json ranked = Json::array();
  for (const auto& h : importance.ranked) {
    Json bins = Json::array();
    for (const auto& b : h.bins) {
      bins.push_back({{"low", b.low}, {"high", b.high}, {"feasible", b.feasible}, {"infeasible", b.infeasible},
                      {"infeasible_fraction", b.infeasible_fraction()}, {"mean_objective", b.mean_objective}});
    }
    ranked.push_back({{"name", h.name}, {"eta_squared", h.eta_squared}, {"chance_level", h.chance_level}, {"bins", bins}});
  }
  imp["ranked"] = ranked;
  return imp;
}

Json isolation_json(const Isolation& isolation) {
  Json iso;
  iso["name"] = isolation.name;
  iso["verdict"] = isolation.verdict;
  Json groups = Json::array();
  for (const auto& grp : isolation.groups) {
    Json studies = Json::array();
    for (const auto& [study, best] : grp.studies) studies.push_back({{"study", study}, {"best", optional_json(best)}});
    groups.push_back({{"value", grp.value}, {"mean", optional_json(grp.mean)}, {"min", optional_json(grp.min)},
                      {"max", optional_json(grp.max)}, {"studies", studies}});
  }
  iso["groups"] = groups;
  return iso;
}

}  // namespace

StudyAnalysis analyze_study(StudyData data, const AnalysisOptions& options) {
  if (data.trials.empty()) {
    throw InputError("study selection '" + data.selector + "' has no finished trial (" +
                     std::to_string(data.unfinished) + " pending or running)");
  }
  StudyAnalysis a;
  a.options = options;
  a.data = std::move(data);
  const StudyData& d = a.data;
  a.finished = d.trials.size();
  a.feasible = d.feasible_count();
  a.infeasible = a.finished - a.feasible;
  Verdicts& v = a.verdicts;
  if (a.infeasible > 0) {
    const double share = static_cast<double>(a.infeasible) / static_cast<double>(a.finished);
    v.push_back({"infeasible",
                 share >= 0.5 ? "most trials are infeasible: shrink the space away from where they diverge"
                              : std::to_string(a.infeasible) + " of " + std::to_string(a.finished) + " trials infeasible",
                 format_double("%.0f", 100 * share) + "% of the finished trials diverged or failed (see the axis plots)"});
  }
  a.boundaries = check_boundaries(d);
  add_boundary_verdicts(a.boundaries, v);
  std::vector<std::optional<double>> objectives;
  for (const auto& t : d.trials) objectives.push_back(t.objective);
  a.best_of_k = best_of_k(objectives, d.higher_is_better, options.resamples, options.seed);
  v.push_back({"best_of_k", a.best_of_k.verdict, best_of_k_detail(a.best_of_k)});
  const auto ranked = d.ranked_feasible();
  for (size_t r = 0; r < ranked.size() && static_cast<int>(r) < options.best_curves; ++r) {
    a.curves.push_back(diagnose_curve(d.trials[ranked[r]], d.objective_metric, d.higher_is_better));
    add_curve_verdicts(a.curves.back(), v);
  }
  a.importance = hyperparameter_importance(d);
  add_importance_verdict(a.importance, v);
  a.isolation = isolate_scientific(d);
  if (a.isolation) v.push_back({"isolation", a.isolation->verdict, isolation_detail(*a.isolation)});
  if (d.unfinished > 0) {
    v.push_back({"unfinished",
                 std::to_string(d.unfinished) + (d.unfinished == 1 ? " trial" : " trials") + " not finished: left out",
                 "pending, running or interrupted trials are not analysed; run the tuning again to finish them"});
  }
  return a;
}

std::string study_analysis_json(const StudyAnalysis& a) {
  const StudyData& d = a.data;
  Json j;
  j["selection"] = d.selector;
  j["workload"] = d.workload;
  j["objective"] = d.objective_metric;
  j["higher_is_better"] = d.higher_is_better;
  j["scientific_hyperparameter"] = d.scientific_name.empty() ? Json() : Json(d.scientific_name);
  j["counts"] = {{"finished", a.finished}, {"feasible", a.feasible}, {"infeasible", a.infeasible},
                 {"unfinished", d.unfinished}};
  Json verdicts = Json::array();
  for (const auto& v : a.verdicts) verdicts.push_back({{"check", v.check}, {"verdict", v.text}, {"evidence", v.detail}});
  j["verdicts"] = verdicts;
  Json checks;
  checks["boundaries"] = boundaries_json(a.boundaries);
  checks["best_of_k"] = best_of_k_json(a.best_of_k);
  Json curves = Json::array();
  for (const auto& c : a.curves) curves.push_back(curve_json(c));
  checks["curves"] = curves;
  checks["importance"] = importance_json(a.importance);
  checks["isolation"] = a.isolation ? isolation_json(*a.isolation) : Json();
  j["checks"] = checks;
  Json trials = Json::array();
  for (const auto& t : d.trials) {
    Json hp = Json::object();
    for (const auto& [name, value] : t.hparams) hp[name] = value;
    for (const auto& [name, value] : t.text_hparams) hp[name] = Json::parse(value);
    trials.push_back({{"study", t.study}, {"trial", t.record.index}, {"status", to_string(t.record.status)}, {"feasible", t.feasible()},
                      {"objective", optional_json(t.objective)}, {"hyperparameters", hp}, {"evals", t.evals.size()}});
  }
  j["trials"] = trials;
  return j.dump(2) + "\n";
}

std::string format_study_analysis(const StudyAnalysis& a) {
  const StudyData& d = a.data;
  std::ostringstream out;
  out << "Study analysis of " << d.selector << " (objective " << d.objective_metric << ", "
      << (d.higher_is_better ? "higher" : "lower") << " is better)\n";
  out << "trials: " << a.finished << " finished (" << a.feasible << " feasible, " << a.infeasible << " infeasible)";
  if (d.unfinished > 0) out << ", " << d.unfinished << " not finished";
  out << "\n";
  const auto ranked = d.ranked_feasible();
  if (!ranked.empty()) {
    const TrialData& best = d.trials[ranked.front()];
    out << "best trial: " << best.study << "/trial_" << best.record.index << " " << d.objective_metric << " = "
        << format_4g(*best.objective) << " (" << hparams_text(best) << ")\n";
  }
  out << "verdicts:\n";
  for (const auto& v : a.verdicts) {
    out << "  - " << v.text << "\n";
    if (!v.detail.empty()) out << "      " << v.detail << "\n";
  }
  return out.str();
}

}  // namespace pacer
