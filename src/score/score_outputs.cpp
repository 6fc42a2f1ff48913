#include "score/score_outputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/atomic_file.h"
#include "core/format.h"
#include "score/pace.h"

namespace pacer {
namespace {

std::string pad(const std::string& s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::string csv_number(double v) { return std::isfinite(v) ? format_double("%.10g", v) : "inf"; }

nlohmann::json trial_costs_json(const WorkloadScore& ws) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : ws.trial_costs) out.push_back({{"study", c.study}, {"trial", c.trial}, {"cost", number_or_null(c.cost)}});
  return out;
}

}  // namespace

std::string format_time(double t, TimeAxis axis) {
  if (!std::isfinite(t)) return "inf";
  return axis == TimeAxis::seconds ? format_double("%.3g s", t) : format_double("%.0f steps", t);
}

std::string leaderboard_text(const ScoreResult& r) {
  std::ostringstream out;
  out << "rules: " << r.rules.describe() << (r.self_tuning ? ", self-tuning" : ", external tuning") << "\n";
  out << "time: " << (r.time_axis == TimeAxis::seconds ? "seconds (score column)" : "steps (global_step column)")
      << ", " << r.clock << " clock; scored workloads (" << r.base_workloads.size() << "):";
  for (const auto& w : r.base_workloads) out << " " << w;
  out << "\n\n";

  size_t name_width = 10;
  for (const auto& s : r.submissions) name_width = std::max(name_width, s.name.size());
  out << "rank  " << pad("submission", name_width) << "   score  reached    pace  pace rank  exp. pace  exp. rank";
  if (!r.reference.empty()) out << "  speedup vs " << r.reference << "  pace speedup  exp. speedup";
  out << "\n";
  for (const auto& s : r.submissions) {
    out << pad(std::to_string(s.rank), 4, true) << "  " << pad(s.name, name_width) << "  " << format_double("%6.4f", s.score)
        << "  " << pad(std::to_string(s.reached()) + "/" + std::to_string(s.workloads.size()), 7, true) << "  "
        << format_double("%6.4f", s.pace) << "  " << pad(std::to_string(s.pace_rank), 9, true) << "  "
        << pad(format_double("%.4f", s.expected_pace), 9, true) << "  " << pad(std::to_string(s.expected_pace_rank), 9, true);
    if (s.speedup) out << "  " << pad(format_double("%.3fx", *s.speedup), 11 + r.reference.size(), true);
    if (s.pace_speedup) out << "  " << pad(format_double("%.3fx", *s.pace_speedup), 12, true);
    if (s.expected_pace_speedup) out << "  " << pad(format_double("%.3fx", *s.expected_pace_speedup), 12, true);
    out << "\n";
  }
  out << "(pace: Pacer's second score, docs/scoring.md: the geometric mean over workloads of the budget\n"
         " fraction used to reach the target, 1 + the miss in 4 target sds (at most 2) when not reached;\n"
         " lower is faster; exp. pace: the all-trials score, the expected best-of-k trial cost of each\n"
         " workload over every trial, k = trials per study, then the same geometric mean)\n";

  out << "\ntime to target (median over studies), ratio to the fastest; * = not counted\n";
  std::vector<size_t> widths;
  out << pad("", name_width + 2);
  for (const auto& w : r.workloads) {
    widths.push_back(std::max<size_t>(w.workload.size(), 18) + 2);
    out << pad(w.workload, widths.back());
  }
  out << "\n";
  std::vector<std::string> notes;
  for (const auto& s : r.submissions) {
    out << pad(s.name, name_width + 2);
    for (size_t w = 0; w < s.workloads.size(); ++w) {
      const WorkloadScore& ws = s.workloads[w];
      std::string cell = ws.time ? format_time(*ws.time, r.time_axis) : "-";
      if (ws.reason.empty() && std::isfinite(ws.ratio)) cell += " (" + format_double("%.2f", ws.ratio) + ")";
      if (!ws.reason.empty()) {
        cell += " *";
        notes.push_back(s.name + "/" + ws.workload + ": " + ws.reason);
      }
      out << pad(cell, widths[w]);
    }
    out << "\n";
  }
  for (const auto& note : notes) out << "  * " << note << "\n";
  return out.str();
}

std::string time_to_targets_csv(const ScoreResult& r) {
  std::ostringstream out;
  out << "submission,workload,metric,direction,target,studies,trials,time_to_target,study_times,scored_time,ratio,"
         "counted,reason,pace_cost,study_pace_costs,expected_pace_cost,best_of_k,trial_pace_costs\n";
  for (const auto& s : r.submissions) {
    for (size_t w = 0; w < s.workloads.size(); ++w) {
      const WorkloadScore& ws = s.workloads[w];
      const ScoringTarget& t = r.workloads[w];
      std::string study_times;
      for (size_t i = 0; i < ws.study_times.size(); ++i) {
        study_times += (i ? ";" : "") + csv_number(ws.study_times[i]);
      }
      std::string study_pace_costs;
      for (size_t i = 0; i < ws.study_pace_costs.size(); ++i) {
        study_pace_costs += (i ? ";" : "") + csv_number(ws.study_pace_costs[i]);
      }
      std::string trial_costs;  // study:trial=cost, the slots the verdicts' bootstrap pairs
      for (const auto& c : ws.trial_costs) {
        trial_costs += (trial_costs.empty() ? "" : ";") + std::to_string(c.study) + ":" + std::to_string(c.trial) + "=" +
                       csv_number(c.cost);
      }
      std::string reason = ws.reason;
      for (char& c : reason) {
        if (c == ',' || c == '"') c = ' ';  // keep the CSV unquoted and simple
      }
      out << s.name << "," << ws.workload << "," << t.metric << "," << (t.higher_is_better ? "max" : "min") << ","
          << csv_number(t.validation_target) << "," << ws.studies.size() << "," << ws.trials << ","
          << (ws.time ? csv_number(*ws.time) : "") << "," << study_times << "," << csv_number(ws.scored_time) << ","
          << csv_number(ws.ratio) << "," << (ws.reason.empty() ? 1 : 0) << "," << reason << ","
          << (ws.pace_cost ? csv_number(*ws.pace_cost) : "") << "," << study_pace_costs << ","
          << (ws.expected_pace_cost ? csv_number(*ws.expected_pace_cost) : "") << "," << ws.best_of_k << "," << trial_costs
          << "\n";
    }
  }
  return out.str();
}

nlohmann::json scores_json(const ScoreResult& r) {
  nlohmann::json j;
  j["rules"] = {{"name", r.rules.name},
                {"description", r.rules.describe()},
                {"num_studies", r.rules.num_studies},
                {"held_out_variants", r.rules.held_out_variants},
                {"self_tuning_multiplier", r.rules.self_tuning_multiplier},
                {"evals_past_budget_count", r.rules.evals_past_budget_count}};
  j["pace_constants"] = {{"width_in_sd", kPaceWidthInSd}, {"max_gap", kPaceMaxGap}, {"relative_width", kPaceRelativeWidth}};
  j["self_tuning"] = r.self_tuning;
  j["time_axis"] = r.time_axis == TimeAxis::seconds ? "seconds" : "steps";
  j["clock"] = r.clock;
  j["time_column"] = time_column(r.time_axis);
  j["reference"] = r.reference.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.reference);
  j["base_workloads"] = r.base_workloads;
  j["tau"] = r.tau;
  j["workloads"] = nlohmann::json::array();
  for (const auto& t : r.workloads) {
    j["workloads"].push_back({{"name", t.workload},
                              {"metric", t.metric},
                              {"direction", t.higher_is_better ? "max" : "min"},
                              {"validation_target", t.validation_target},
                              {"time_budget", t.time_budget},
                              {"seed_sd", t.seed_sd > 0 ? nlohmann::json(t.seed_sd) : nlohmann::json(nullptr)},
                              {"pace_width", pace_width(t)},
                              {"base_workload", t.base_workload}});
  }
  j["submissions"] = nlohmann::json::array();
  for (const auto& s : r.submissions) {
    nlohmann::json sj = {{"name", s.name}, {"rank", s.rank}, {"score", s.score}, {"reached", s.reached()}};
    sj["speedup"] = s.speedup ? number_or_null(*s.speedup) : nlohmann::json(nullptr);
    sj["pace"] = number_or_null(s.pace);
    sj["pace_rank"] = s.pace_rank;
    sj["pace_speedup"] = s.pace_speedup ? number_or_null(*s.pace_speedup) : nlohmann::json(nullptr);
    sj["expected_pace"] = number_or_null(s.expected_pace);
    sj["expected_pace_rank"] = s.expected_pace_rank;
    sj["expected_pace_speedup"] =
        s.expected_pace_speedup ? number_or_null(*s.expected_pace_speedup) : nlohmann::json(nullptr);
    sj["profile"] = s.rho;
    sj["workloads"] = nlohmann::json::object();
    for (const auto& ws : s.workloads) {
      nlohmann::json study_times = nlohmann::json::array();
      for (double t : ws.study_times) study_times.push_back(number_or_null(t));
      sj["workloads"][ws.workload] = {{"has_logs", ws.time.has_value()},
                                      {"time", ws.time ? number_or_null(*ws.time) : nlohmann::json(nullptr)},
                                      {"studies", ws.studies},
                                      {"study_times", study_times},
                                      {"trials", ws.trials},
                                      {"scored_time", number_or_null(ws.scored_time)},
                                      {"ratio", number_or_null(ws.ratio)},
                                      {"counted", ws.reason.empty()},
                                      {"reason", ws.reason},
                                      {"curve_source", ws.curve_source},
                                      {"pace_cost", ws.pace_cost ? number_or_null(*ws.pace_cost) : nlohmann::json(nullptr)},
                                      {"study_pace_costs", ws.study_pace_costs},
                                      {"expected_pace_cost", ws.expected_pace_cost ? number_or_null(*ws.expected_pace_cost)
                                                                                   : nlohmann::json(nullptr)},
                                      {"best_of_k", ws.best_of_k},
                                      {"trial_pace_costs", trial_costs_json(ws)}};
    }
    j["submissions"].push_back(sj);
  }
  j["warnings"] = r.warnings;
  return j;
}

void write_score_files(const ScoreResult& r, const std::string& dir) {
  create_directories(dir);
  write_file_atomic(dir + "/time_to_targets.csv", time_to_targets_csv(r));
  write_file_atomic(dir + "/scores.json", scores_json(r).dump(2) + "\n");
}

}  // namespace pacer
