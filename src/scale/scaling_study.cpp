#include "scale/scaling_study.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_input.h"
#include "core/format.h"
#include "scale/scale_experiment.h"
#include "tune/worker_options.h"
#include "scale/scaling_page.h"
#include "tune/sweep.h"

namespace pacer {
namespace {

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string hyperparameters_summary(const std::string& json, const std::string& separator, const std::string& equals) {
  const auto j = nlohmann::ordered_json::parse(json, nullptr, false);
  if (!j.is_object()) return json;
  std::string out;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_number()) continue;
    out += (out.empty() ? "" : separator) + k + equals + format_double("%.3g", v.get<double>());
  }
  return out;
}

ScalingReport read_scaling_study(const StudyStore& store, const std::vector<StudyRecord>& studies,
                                 const TrainingGoal& goal, const RegimeThresholds& thresholds,
                                 int bootstrap_resamples) {
  ScalingReport report;
  report.goal = goal;
  report.thresholds = thresholds;
  std::map<std::string, size_t> series_index;
  // series -> batch size -> trials (with their hyperparameters and noise scales per eval)
  std::map<std::string, std::map<int64_t, std::vector<ScalingTrial>>> trials;
  std::map<std::string, std::map<int64_t, BatchSizeResult>> results;
  std::map<int64_t, std::string> hparams_by_trial, folder_by_trial;
  std::map<int64_t, std::map<int64_t, double>> noise_by_trial;  // trial -> step -> noise scale
  for (const auto& stored : studies) {
    StudyRecord study = stored;
    study.experiment = scale_series_of(study.experiment);
    report.workload = study.workload;
    if (!series_index.count(study.experiment)) {
      series_index[study.experiment] = report.series.size();
      ScalingSeries s;
      s.name = study.experiment;
      s.algorithm = study.algorithm;
      report.series.push_back(s);
    }
    const TrialSpec settings = TrialSpec::from_json(study.trial_spec);
    const int64_t b = settings.batch_size.value_or(0);
    auto& r = results[study.experiment][b];
    r.batch_size = b;
    r.step_budget = settings.max_steps;
    for (const auto& t : store.trials(study.id)) {
      if (!is_terminal(t.status)) {
        ++r.pending;
        continue;
      }
      ScalingTrial st;
      st.trial_id = t.id;
      st.diverged = t.status == StoredTrialStatus::diverged;
      for (const auto& e : store.evals(t.id, t.attempts)) {
        if (const auto value = finite_metric(e, goal.metric)) st.evals.emplace_back(e.step, *value);
        if (const auto noise = finite_metric(e, "train/noise_scale")) noise_by_trial[t.id][e.step] = *noise;
      }
      hparams_by_trial[t.id] = t.hparams_json.value_or("{}");
      folder_by_trial[t.id] = trial_folder("", stored, t.index, /*experiment_folder=*/true).substr(1);  // as the worker names it
      trials[study.experiment][b].push_back(st);
    }
  }
  for (auto& series : report.series) {
    std::map<int64_t, std::optional<int64_t>> steps;
    std::vector<double> noise;
    for (auto& [b, r] : results[series.name]) {
      r.result = steps_to_result(trials[series.name][b], goal.value, goal.higher_is_better);
      if (r.result.trial_id) {
        r.best_hparams = hparams_by_trial[*r.result.trial_id];
        r.best_trial_folder = folder_by_trial[*r.result.trial_id];
        const auto& n = noise_by_trial[*r.result.trial_id];
        if (auto it = n.find(*r.result.steps); it != n.end() && std::isfinite(it->second)) {
          r.noise_scale = it->second;
          noise.push_back(it->second);
        }
      }
      steps[b] = r.result.steps;
      series.batch_sizes.push_back(r);
    }
    series.points = analyze_scaling(steps, thresholds);
    series.fit = bootstrap_critical_batch(trials[series.name], goal.value, goal.higher_is_better, bootstrap_resamples);
    if (!noise.empty()) {
      std::sort(noise.begin(), noise.end());
      const size_t m = noise.size() / 2;
      series.noise_scale = noise.size() % 2 ? noise[m] : 0.5 * (noise[m - 1] + noise[m]);
    }
  }
  return report;
}

std::string scaling_table_text(const ScalingReport& report) {
  std::ostringstream out;
  out << "steps to " << report.goal.metric << (report.goal.higher_is_better ? " > " : " < ") << report.goal.value
      << " on " << report.workload << "\n";
  for (const auto& s : report.series) {
    out << "\n" << s.name << " (" << s.algorithm << ")\n";
    size_t folder_width = 12;
    for (const auto& b : s.batch_sizes) folder_width = std::max(folder_width, b.best_trial_folder.size() + 2);
    out << "  " << pad("batch", 8) << pad("steps", 9) << pad("best trial (logs/)", folder_width) << pad("efficiency", 12)
        << pad("regime", 26) << pad("trials (div, miss)", 20) << "best hyperparameters\n";
    for (size_t i = 0; i < s.batch_sizes.size(); ++i) {
      const auto& b = s.batch_sizes[i];
      const auto& p = s.points[i];
      const int missed = b.result.trials - b.result.diverged - b.result.reached;
      out << "  " << pad(std::to_string(b.batch_size), 8)
          << pad(b.result.steps ? std::to_string(*b.result.steps) : "never", 9)
          << pad(!b.best_trial_folder.empty() ? b.best_trial_folder
                 : b.result.trial_id          ? std::to_string(*b.result.trial_id)
                                              : "-",
                 folder_width)
          << pad(p.efficiency ? format_double("%.2f", *p.efficiency) : "-", 12) << pad(to_string(p.regime), 26)
          << pad(std::to_string(b.result.trials) + " (" + std::to_string(b.result.diverged) + ", " +
                     std::to_string(missed) + ")" + (b.pending ? " +" + std::to_string(b.pending) + " pending" : ""),
                 20)
          << (b.result.trial_id ? hyperparameters_summary(b.best_hparams) : "") << "\n";
    }
    if (s.fit) {
      out << "  fit S(B) = S_min (1 + B_crit / B): S_min " << format_double("%.0f", s.fit->fit.s_min)
          << " steps, B_crit " << format_double("%.0f", s.fit->fit.b_crit) << " (95% bootstrap interval "
          << format_double("%.0f", s.fit->b_crit_low) << " - " << format_double("%.0f", s.fit->b_crit_high) << ", "
          << s.fit->resamples << " resamples), rms log error " << format_double("%.3f", s.fit->fit.rms_log_error)
          << "\n";
    } else {
      out << "  fit: fewer than three batch sizes reached the goal\n";
    }
    if (s.noise_scale) {
      out << "  gradient noise scale B_simple (median of the best trials at their hit): "
          << format_double("%.0f", *s.noise_scale) << "\n";
    }
  }
  out << "\nregimes: perfect scaling if efficiency >= " << report.thresholds.perfect
      << ", maximal data parallelism if < " << report.thresholds.maximal
      << ", else diminishing returns (efficiency = ln(S(B1)/S(B2)) / ln(B2/B1))\n";
  return out.str();
}

namespace {

nlohmann::ordered_json report_json(const ScalingReport& report) {
  nlohmann::ordered_json j;
  j["workload"] = report.workload;
  j["goal"] = {{"metric", report.goal.metric}, {"value", report.goal.value}, {"higher_is_better", report.goal.higher_is_better}};
  j["thresholds"] = {{"perfect", report.thresholds.perfect}, {"maximal", report.thresholds.maximal}};
  auto series = nlohmann::ordered_json::array();
  for (const auto& s : report.series) {
    nlohmann::ordered_json sj;
    sj["name"] = s.name;
    sj["algorithm"] = s.algorithm;
    auto rows = nlohmann::ordered_json::array();
    for (size_t i = 0; i < s.batch_sizes.size(); ++i) {
      const auto& b = s.batch_sizes[i];
      const auto& p = s.points[i];
      nlohmann::ordered_json r;
      r["batch_size"] = b.batch_size;
      r["step_budget"] = b.step_budget;
      r["steps_to_result"] = b.result.steps ? nlohmann::ordered_json(*b.result.steps) : nlohmann::ordered_json();
      r["best_trial"] = b.result.trial_id ? nlohmann::ordered_json(*b.result.trial_id) : nlohmann::ordered_json();
      r["best_trial_folder"] = b.best_trial_folder.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(b.best_trial_folder);
      r["best_hyperparameters"] = b.result.trial_id ? nlohmann::ordered_json::parse(b.best_hparams) : nlohmann::ordered_json();
      r["efficiency"] = p.efficiency ? nlohmann::ordered_json(*p.efficiency) : nlohmann::ordered_json();
      r["regime"] = to_string(p.regime);
      r["trials"] = b.result.trials;
      r["diverged"] = b.result.diverged;
      r["reached"] = b.result.reached;
      r["pending"] = b.pending;
      r["noise_scale"] = b.noise_scale ? nlohmann::ordered_json(*b.noise_scale) : nlohmann::ordered_json();
      rows.push_back(r);
    }
    sj["batch_sizes"] = rows;
    if (s.fit) {
      sj["fit"] = {{"s_min", s.fit->fit.s_min}, {"b_crit", s.fit->fit.b_crit}, {"b_crit_low", s.fit->b_crit_low},
                   {"b_crit_high", s.fit->b_crit_high}, {"s_min_low", s.fit->s_min_low},
                   {"s_min_high", s.fit->s_min_high}, {"rms_log_error", s.fit->fit.rms_log_error},
                   {"resamples", s.fit->resamples}};
    }
    sj["noise_scale"] = s.noise_scale ? nlohmann::ordered_json(*s.noise_scale) : nlohmann::ordered_json();
    series.push_back(sj);
  }
  j["series"] = series;
  return j;
}

ScalingRegime parse_regime(const std::string& text) {
  for (ScalingRegime r : {ScalingRegime::perfect, ScalingRegime::diminishing, ScalingRegime::maximal}) {
    if (text == to_string(r)) return r;
  }
  return ScalingRegime::unknown;
}

template <class T>
std::optional<T> optional_of(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

}  // namespace

ScalingReport scaling_report_from_json(const std::string& text, const std::string& origin) {
  check_json_input(text, origin);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw InputError(origin + ": not valid JSON");
  ScalingReport report;
  try {
    report.workload = j.at("workload").get<std::string>();
    const auto& g = j.at("goal");
    report.goal = {g.at("metric").get<std::string>(), g.at("value").get<double>(), g.at("higher_is_better").get<bool>()};
    report.thresholds = {j.at("thresholds").at("perfect").get<double>(), j.at("thresholds").at("maximal").get<double>()};
    for (const auto& sj : j.at("series")) {
      ScalingSeries s;
      s.name = sj.at("name").get<std::string>();
      s.algorithm = sj.at("algorithm").get<std::string>();
      for (const auto& r : sj.at("batch_sizes")) {
        BatchSizeResult b;
        b.batch_size = r.at("batch_size").get<int64_t>();
        b.step_budget = r.at("step_budget").get<int64_t>();
        b.result.steps = optional_of<int64_t>(r, "steps_to_result");
        b.result.trial_id = optional_of<int64_t>(r, "best_trial");
        if (r.contains("best_trial_folder") && r.at("best_trial_folder").is_string()) {
          b.best_trial_folder = r.at("best_trial_folder").get<std::string>();  // absent in files before it existed
        }
        b.result.trials = r.at("trials").get<int>();
        b.result.diverged = r.at("diverged").get<int>();
        b.result.reached = r.at("reached").get<int>();
        b.pending = r.at("pending").get<int>();
        if (!r.at("best_hyperparameters").is_null()) b.best_hparams = r.at("best_hyperparameters").dump();
        b.noise_scale = optional_of<double>(r, "noise_scale");
        ScalingPoint p;
        p.batch_size = b.batch_size;
        p.steps = b.result.steps;
        p.efficiency = optional_of<double>(r, "efficiency");
        p.regime = parse_regime(r.at("regime").get<std::string>());
        s.batch_sizes.push_back(b);
        s.points.push_back(p);
      }
      if (sj.contains("fit")) {
        const auto& f = sj.at("fit");
        CriticalBatchInterval fit;
        fit.fit.s_min = f.at("s_min").get<double>();
        fit.fit.b_crit = f.at("b_crit").get<double>();
        fit.fit.rms_log_error = f.at("rms_log_error").get<double>();
        fit.b_crit_low = f.at("b_crit_low").get<double>();
        fit.b_crit_high = f.at("b_crit_high").get<double>();
        fit.s_min_low = f.at("s_min_low").get<double>();
        fit.s_min_high = f.at("s_min_high").get<double>();
        fit.resamples = f.at("resamples").get<int>();
        s.fit = fit;
      }
      s.noise_scale = optional_of<double>(sj, "noise_scale");
      report.series.push_back(s);
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(origin + ": not a scaling study (" + std::string(e.what()) + ")");
  }
  return report;
}

std::string scaling_json_text(const ScalingReport& report) { return report_json(report).dump(2) + "\n"; }

void write_scaling_outputs(const ScalingReport& report, const std::string& dir) {
  create_directories(dir);
  write_file_atomic(dir + "/scaling.json", scaling_json_text(report));
  std::ostringstream csv;
  csv << "series,algorithm,batch_size,step_budget,steps_to_result,best_trial,best_trial_folder,efficiency,regime,trials,"
         "diverged,reached,noise_scale\n";
  for (const auto& s : report.series) {
    for (size_t i = 0; i < s.batch_sizes.size(); ++i) {
      const auto& b = s.batch_sizes[i];
      const auto& p = s.points[i];
      csv << s.name << "," << s.algorithm << "," << b.batch_size << "," << b.step_budget << ","
          << (b.result.steps ? std::to_string(*b.result.steps) : "") << ","
          << (b.result.trial_id ? std::to_string(*b.result.trial_id) : "") << "," << b.best_trial_folder << ","
          << (p.efficiency ? format_double("%.4f", *p.efficiency) : "") << "," << to_string(p.regime) << "," << b.result.trials
          << "," << b.result.diverged << "," << b.result.reached << ","
          << (b.noise_scale ? format_double("%.6g", *b.noise_scale) : "") << "\n";
    }
  }
  write_file_atomic(dir + "/scaling.csv", csv.str());
  const std::string svg = scaling_plot_svg(report);
  write_file_atomic(dir + "/steps_vs_batch_size.svg", svg);
  write_file_atomic(dir + "/report.html", render_scaling_html(report));
}

}  // namespace pacer
