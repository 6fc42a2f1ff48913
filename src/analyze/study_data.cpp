#include "analyze/study_data.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <cmath>
#include <set>

#include "core/error.h"
#include "core/json_input.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = text.find(sep); at != std::string::npos; at = text.find(sep, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string sweep_list(const std::vector<StudyRecord>& all) {
  std::set<std::string> seen;
  std::vector<std::string> names;
  for (const auto& s : all) {
    const std::string name = parse_experiment_name(s.experiment).base + "/" + s.workload;
    if (seen.insert(name).second) names.push_back(name);
  }
  std::string out;
  for (size_t i = 0; i < names.size() && i < 12; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 12) out += ", ...";
  return out.empty() ? "none" : out;
}

// A trial's point: numbers in order (booleans read as 0/1), and its strings as JSON writes them;
// anything else is left out.
void read_point(const std::string& text, TrialData& t) {
  check_json_input(text, "study store");
  const auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    if (value.is_number()) t.hparams.emplace_back(key, value.get<double>());
    else if (value.is_boolean()) t.hparams.emplace_back(key, value.get<bool>() ? 1.0 : 0.0);
    else if (value.is_string()) t.text_hparams.emplace_back(key, value.dump());
  }
}

}  // namespace

std::optional<double> TrialData::hparam(const std::string& name) const {
  for (const auto& [key, value] : hparams) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::string TrialData::label() const {
  const size_t slash = study.rfind('/');
  const std::string tail = (slash == std::string::npos ? study : study.substr(slash + 1)) + "/trial_" + std::to_string(record.index);
  // Rounds of a scientific hyperparameter have their own study_1, study_2...: name the value too.
  const size_t at = experiment.find('@');
  return at == std::string::npos ? tail : experiment.substr(at + 1) + " " + tail;
}

size_t StudyData::feasible_count() const {
  return static_cast<size_t>(std::count_if(trials.begin(), trials.end(), [](const TrialData& t) { return t.feasible(); }));
}

std::vector<size_t> StudyData::ranked_feasible() const {
  std::vector<size_t> order;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (trials[i].feasible()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return better(*trials[a].objective, *trials[b].objective); });
  return order;
}

ExperimentName parse_experiment_name(const std::string& experiment) {
  const size_t at = experiment.find('@');
  if (at == std::string::npos) return {experiment, "", ""};
  const std::string rest = experiment.substr(at + 1);
  const size_t eq = rest.find('=');
  if (eq == std::string::npos) return {experiment.substr(0, at), rest, ""};
  return {experiment.substr(0, at), rest.substr(0, eq), rest.substr(eq + 1)};
}

std::optional<double> trial_objective(StoredTrialStatus status, const std::vector<EvalRecord>& evals,
                                      const std::string& metric, bool higher_is_better) {
  if (status != StoredTrialStatus::complete) return std::nullopt;
  std::optional<double> best;
  for (const auto& e : evals) {
    const auto it = e.metrics.find(metric);
    if (it == e.metrics.end()) continue;
    // A non-finite validation value means the run blew up: the trial is infeasible.
    if (!std::isfinite(it->second)) return std::nullopt;
    if (!best || (higher_is_better ? it->second > *best : it->second < *best)) best = it->second;
  }
  return best;
}

std::vector<StudyRecord> select_sweep_studies(const std::vector<StudyRecord>& all, const std::string& selector) {
  const auto parts = split(selector, '/');
  if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty()) {
    throw InputError("study selection '" + selector +
                     "' must be EXPERIMENT/WORKLOAD or EXPERIMENT/WORKLOAD/study_K (sweeps: " + sweep_list(all) + ")");
  }
  std::vector<StudyRecord> chosen;
  for (const auto& s : all) {
    if (s.workload != parts[1]) continue;
    if (parts.size() == 3) {
      if (s.name() == selector) chosen.push_back(s);
    } else if (s.experiment == parts[0] || s.experiment.rfind(parts[0] + "@", 0) == 0) {
      chosen.push_back(s);
    }
  }
  if (chosen.empty()) throw InputError("no study matches '" + selector + "' (sweeps: " + sweep_list(all) + ")");
  std::stable_sort(chosen.begin(), chosen.end(), [](const StudyRecord& a, const StudyRecord& b) {
    return a.experiment != b.experiment ? a.experiment < b.experiment : a.study_index < b.study_index;
  });
  return chosen;
}

StudyData load_study_data(const StudyStore& store, const std::string& selector) {
  return load_study_data(store, selector, select_sweep_studies(store.studies(), selector));
}

TrialData load_trial_data(const StudyStore& store, const StudyRecord& study, const TrialRecord& record,
                          const std::string& objective_metric, bool higher_is_better) {
  TrialData t;
  t.study = study.name();
  t.experiment = study.experiment;
  t.scientific_value = parse_experiment_name(study.experiment).scientific_value;
  if (record.hparams_json) read_point(*record.hparams_json, t);
  t.evals = store.evals(record.id);
  std::stable_sort(t.evals.begin(), t.evals.end(), [](const EvalRecord& a, const EvalRecord& b) { return a.step < b.step; });
  if (is_terminal(record.status)) t.objective = trial_objective(record.status, t.evals, objective_metric, higher_is_better);
  t.record = record;
  return t;
}

StudyData load_study_data(const StudyStore& store, const std::string& selector, const std::vector<StudyRecord>& studies) {
  if (studies.empty()) throw InputError("study selection '" + selector + "' holds no study");
  // One experiment name over two tuning runs with other settings (another space, ruleset or
  // trial options): `pacer score` keeps them apart, and their boundaries and curves would mix.
  std::map<std::string, const StudyRecord*> sweep_of;
  for (const auto& s : studies) {
    const auto [at, fresh] = sweep_of.emplace(s.experiment, &s);
    if (!fresh && (at->second->sweep != s.sweep || at->second->ruleset != s.ruleset)) {
      throw InputError("study selection '" + selector + "' covers two tuning runs with other settings named " +
                       s.experiment + "/" + s.workload + " (" + at->second->name() + " and " + s.name() +
                       "); analyzing them as one would mix their search spaces: give each run its own name "
                       "(pacer tune --name), or select one study");
    }
  }
  StudyData data;
  data.selector = selector;
  data.workload = studies.front().workload;
  const WorkloadSpec& spec = workload_spec(data.workload);
  data.objective_metric = "validation/" + spec.target_metric;
  data.higher_is_better = spec.higher_is_better;
  for (const auto& s : studies) {
    if (data.space || s.space_json.empty() || s.space_json == "{}") continue;
    // A space the analysis cannot read only disables the space-based checks.
    try {
      data.space = SearchSpace::from_json_text(s.space_json, s.name());
    } catch (const InputError&) {
    }
  }
  for (const auto& s : studies) {
    const ExperimentName name = parse_experiment_name(s.experiment);
    if (!name.scientific_name.empty()) {
      if (!data.scientific_name.empty() && data.scientific_name != name.scientific_name) {
        throw InputError("study selection '" + selector + "' mixes the scientific hyperparameters '" +
                         data.scientific_name + "' and '" + name.scientific_name + "'; select one study");
      }
      data.scientific_name = name.scientific_name;
    }
    for (const auto& record : store.trials(s.id)) {
      if (!is_terminal(record.status)) {
        ++data.unfinished;
        continue;
      }
      data.trials.push_back(load_trial_data(store, s, record, data.objective_metric, data.higher_is_better));
    }
  }
  return data;
}

}  // namespace pacer
