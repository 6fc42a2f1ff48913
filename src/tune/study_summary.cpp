#include "tune/study_summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "score/time_to_target.h"

namespace pacer {
namespace {

std::string seconds_text(double t) {
  if (!std::isfinite(t)) return "inf";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f s", t);
  return buffer;
}

std::string optional_text(const std::optional<double>& v, const char* format) {
  if (!v) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), format, *v);
  return buffer;
}

std::string hparams_text(const std::optional<std::string>& json) {
  if (!json) return "(self-tuning)";
  const auto parsed = nlohmann::ordered_json::parse(*json, nullptr, false);
  if (!parsed.is_object()) return *json;
  std::ostringstream out;
  bool first = true;
  for (const auto& [name, value] : parsed.items()) {
    out << (first ? "" : " ") << name << "=";
    if (value.is_number()) {
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.4g", value.get<double>());
      out << buffer;
    } else {
      out << value.dump();
    }
    first = false;
  }
  return out.str();
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}
nlohmann::ordered_json optional_json(const std::optional<int64_t>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}
// Infinity (not reached) is null, as everywhere in Pacer's JSON.
nlohmann::ordered_json time_json(double t) {
  return std::isfinite(t) ? nlohmann::ordered_json(t) : nlohmann::ordered_json();
}

nlohmann::ordered_json sweeps_json(const std::vector<SweepSummary>& sweeps) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& sweep : sweeps) {
    nlohmann::ordered_json j;
    j["experiment"] = sweep.experiment;
    j["workload"] = sweep.workload;
    j["algorithm"] = sweep.algorithm;
    j["ruleset"] = sweep.ruleset;
    j["finished"] = sweep.finished();
    j["workload_time_to_target"] = time_json(sweep.median_time);
    auto studies = nlohmann::ordered_json::array();
    for (const auto& s : sweep.studies) {
      nlohmann::ordered_json sj;
      sj["id"] = s.study.id;
      sj["study"] = s.study.study_index;
      sj["name"] = s.study.name();
      sj["sampler"] = s.study.sampler;
      sj["sampler_seed"] = std::to_string(s.study.sampler_seed);  // 64-bit: a string, exact in every reader
      sj["best_trial"] = optional_json(s.best_trial);
      sj["time_to_target"] = time_json(s.time_to_target);
      sj["steps_to_target"] = optional_json(s.steps_to_target);
      auto trials = nlohmann::ordered_json::array();
      for (const auto& t : s.trials) {
        nlohmann::ordered_json tj;
        tj["trial"] = t.index;
        tj["status"] = to_string(t.status);
        const TrialOutcome* r = t.result ? &*t.result : nullptr;
        tj["outcome"] = r ? to_string(r->status) : "";
        tj["attempts"] = t.attempts;
        tj["seed"] = std::to_string(t.seed);
        tj["hyperparameters"] =
            t.hparams_json ? nlohmann::ordered_json::parse(*t.hparams_json) : nlohmann::ordered_json();
        tj["time_to_target"] = r ? optional_json(r->time_to_target) : nullptr;
        tj["steps_to_target"] = r ? optional_json(r->steps_to_target) : nullptr;
        tj["eval_index_to_target"] = r ? optional_json(r->eval_index_to_target) : nullptr;
        tj["best_validation"] = r ? optional_json(r->best_validation) : nullptr;
        tj["steps"] = r ? nlohmann::ordered_json(r->steps) : nullptr;
        tj["submission_time"] = r ? nlohmann::ordered_json(r->submission_time) : nullptr;
        tj["stop_reason"] = r ? to_string(r->stop_reason) : "";
        tj["message"] = r ? r->message : t.interruption;
        trials.push_back(tj);
      }
      sj["trials"] = trials;
      studies.push_back(sj);
    }
    j["studies"] = studies;
    out.push_back(j);
  }
  return out;
}

}  // namespace

bool SweepSummary::finished() const {
  for (const auto& s : studies) {
    if (!s.progress.finished()) return false;
  }
  return true;
}

std::vector<SweepSummary> summarize_studies(const StudyStore& store, const std::vector<StudyRecord>& studies) {
  std::vector<SweepSummary> sweeps;
  std::map<std::string, size_t> index;
  for (const auto& study : studies) {
    auto it = index.find(study.sweep);
    if (it == index.end()) {
      it = index.emplace(study.sweep, sweeps.size()).first;
      SweepSummary sweep;
      sweep.sweep = study.sweep;
      sweep.experiment = study.experiment;
      sweep.workload = study.workload;
      sweep.algorithm = study.algorithm;
      sweep.ruleset = study.ruleset;
      sweeps.push_back(sweep);
    }
    StudySummary summary;
    summary.study = study;
    summary.trials = store.trials(study.id);
    summary.progress = store.progress({study.id});
    // The reference rule, shared with `pacer score`: earliest eval index, ties to the smaller time.
    // The stored per-trial values come from the trial runner (evals within the budget only).
    std::vector<TrialLog> logs(summary.trials.size());
    std::vector<const TrialLog*> pointers;
    std::vector<TrialTime> times;
    for (size_t i = 0; i < summary.trials.size(); ++i) {
      const auto& t = summary.trials[i];
      logs[i].trial = static_cast<int>(t.index);
      pointers.push_back(&logs[i]);
      TrialTime time;
      if (t.status == StoredTrialStatus::complete && t.result->eval_index_to_target && t.result->time_to_target) {
        time.eval_index = static_cast<size_t>(*t.result->eval_index_to_target);
        time.time = *t.result->time_to_target;
      }
      times.push_back(time);
    }
    const StudyTime best = study_time_to_target(pointers, times);
    if (best.trial && best.time.reached()) {
      summary.best_trial = best.trial->trial;
      summary.time_to_target = best.time.time;
      for (const auto& t : summary.trials) {
        if (t.index == *summary.best_trial && t.result) summary.steps_to_target = t.result->steps_to_target;
      }
    }
    sweeps[it->second].studies.push_back(std::move(summary));
  }
  for (auto& sweep : sweeps) {
    std::vector<double> times;
    for (const auto& s : sweep.studies) times.push_back(s.time_to_target);
    sweep.median_time = median_time(times);
  }
  return sweeps;
}

std::string format_sweeps_table(const std::vector<SweepSummary>& sweeps) {
  // The first column is the key `study show`, `study export` and `analyze` take.
  const std::string key_title = "study key (experiment/workload)";
  size_t key_width = key_title.size();
  for (const auto& sweep : sweeps) key_width = std::max(key_width, sweep.experiment.size() + 1 + sweep.workload.size());
  std::ostringstream out;
  out << pad(key_title, key_width + 2) << pad("ruleset", 10) << pad("studies", 9)
      << pad("trials done/all", 17) << pad("per-study best", 36) << "workload time (median)\n";
  for (const auto& sweep : sweeps) {
    int64_t done = 0, all = 0;
    std::string bests;
    for (const auto& s : sweep.studies) {
      done += s.progress.done;
      all += static_cast<int64_t>(s.trials.size());
      bests += (bests.empty() ? "" : ", ") + seconds_text(s.time_to_target);
    }
    out << pad(sweep.experiment + "/" + sweep.workload, key_width + 2) << pad(sweep.ruleset, 10)
        << pad(std::to_string(sweep.studies.size()), 9) << pad(std::to_string(done) + "/" + std::to_string(all), 17)
        << pad(bests, 36) << seconds_text(sweep.median_time) << (sweep.finished() ? "" : " (unfinished)") << "\n";
  }
  return out.str();
}

std::string format_study_details(const SweepSummary& sweep) {
  std::ostringstream out;
  out << sweep.experiment << " / " << sweep.workload << " (" << sweep.algorithm << ", " << sweep.ruleset
      << " tuning)\n";
  for (const auto& s : sweep.studies) {
    out << "  study " << s.study.study_index << " (id " << s.study.id << ", sampler "
        << (s.study.sampler.empty() ? "-" : s.study.sampler) << ", seed " << s.study.sampler_seed << "): best trial "
        << (s.best_trial ? std::to_string(*s.best_trial) : std::string("none")) << ", time to target "
        << seconds_text(s.time_to_target);
    if (s.steps_to_target) out << ", " << *s.steps_to_target << " steps";
    out << "\n";
    out << "    " << pad("trial", 7) << pad("status", 13) << pad("attempts", 10) << pad("time-to-target", 16)
        << pad("steps-to-target", 17) << pad("best val", 10) << pad("steps", 8) << "hyperparameters\n";
    for (const auto& t : s.trials) {
      std::string status = to_string(t.status);
      if (t.status == StoredTrialStatus::complete) status = to_string(t.result->status);
      const TrialOutcome r = t.result.value_or(TrialOutcome{});
      const bool best = s.best_trial && *s.best_trial == t.index;
      out << "    " << pad((best ? "*" : " ") + std::to_string(t.index), 7) << pad(status, 13)
          << pad(std::to_string(t.attempts), 10) << pad(optional_text(r.time_to_target, "%.3f s"), 16)
          << pad(r.steps_to_target ? std::to_string(*r.steps_to_target) : "-", 17)
          << pad(optional_text(r.best_validation, "%.4f"), 10)
          << pad(t.result ? std::to_string(r.steps) : "-", 8) << hparams_text(t.hparams_json) << "\n";
    }
  }
  out << "  workload time-to-target (median over " << sweep.studies.size()
      << " studies, infinite studies included): " << seconds_text(sweep.median_time)
      << (sweep.finished() ? "" : " (studies unfinished)") << "\n";
  return out.str();
}

namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_value(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return "";
    return v.dump();  // the shortest text that reads back as the same double
  }
  return csv_field(v.dump());
}

}  // namespace

std::string trials_csv_text(const std::vector<SweepSummary>& sweeps) {
  const auto j = sweeps_json(sweeps);
  // Hyperparameter columns: the union over trials, in order of first appearance.
  std::vector<std::string> names;
  for (const auto& sweep : j)
    for (const auto& study : sweep["studies"])
      for (const auto& trial : study["trials"])
        if (trial["hyperparameters"].is_object())
          for (const auto& [name, value] : trial["hyperparameters"].items())
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  const std::vector<std::string> sweep_keys = {"experiment", "workload", "algorithm", "ruleset"};
  const std::vector<std::string> trial_keys = {"trial",         "status",          "outcome",
                                               "attempts",      "seed",            "time_to_target",
                                               "steps_to_target", "eval_index_to_target", "best_validation",
                                               "steps",         "submission_time", "stop_reason", "message"};
  std::ostringstream out;
  for (const auto& k : sweep_keys) out << k << ",";
  out << "study,study_id,best";
  for (const auto& k : trial_keys) out << "," << k;
  for (const auto& n : names) out << "," << csv_field("hp." + n);
  out << "\n";
  for (const auto& sweep : j) {
    for (const auto& study : sweep["studies"]) {
      for (const auto& trial : study["trials"]) {
        for (const auto& k : sweep_keys) out << csv_value(sweep[k]) << ",";
        out << csv_value(study["study"]) << "," << csv_value(study["id"]) << ","
            << (study["best_trial"] == trial["trial"] ? "1" : "0");
        for (const auto& k : trial_keys) out << "," << csv_value(trial[k]);
        for (const auto& n : names) {
          const auto& hp = trial["hyperparameters"];
          out << "," << (hp.is_object() && hp.contains(n) ? csv_value(hp[n]) : "");
        }
        out << "\n";
      }
    }
  }
  return out.str();
}

std::string sweeps_json_text(const std::vector<SweepSummary>& sweeps) { return sweeps_json(sweeps).dump(2) + "\n"; }

}  // namespace pacer
