#include "score/store_source.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "core/json_input.h"
#include "store/store_database.h"
#include "store/study_store.h"

namespace pacer {
namespace {

// The clock a study's trials were timed by: its stored trial settings' "clock" (written only
// when not the wall clock, so studies from before the option read as wall).
std::string clock_of(const std::string& trial_spec, const std::string& where) {
  check_json_input(trial_spec, where);
  const auto j = nlohmann::json::parse(trial_spec, nullptr, false);
  // Unreadable settings say nothing of the clock: guessing "wall" made score blame "different clocks".
  if (j.is_discarded() || !j.is_object()) {
    throw InputError(where + ": its stored trial settings are not a JSON object (a damaged store?): cannot tell "
                             "which clock timed its trials");
  }
  if (!j.contains("clock")) return "wall";
  if (!j["clock"].is_string() || (j["clock"] != "wall" && j["clock"] != "cpu")) {
    throw InputError(where + ": stored clock " + j["clock"].dump() + " is neither wall nor cpu");
  }
  return j["clock"].get<std::string>();
}

// One finished trial of a stored study as scoring reads a log: its evals as columns.
TrialLog trial_log(StudyStore& store, const StudyRecord& study, const TrialRecord& trial, const std::string& path,
                   const std::string& clock) {
  TrialLog log;
  log.submission = study.experiment;
  log.workload = study.workload;
  log.study = study.study_index;
  log.trial = static_cast<int>(trial.index);
  log.source = path + ": " + study.name() + "/trial_" + std::to_string(trial.index);
  log.clock = clock;
  log.from_store = true;
  if (trial.result) log.threads = trial.result->threads;
  if (trial.result) log.stopped_early = trial.result->status == TrialStatus::stopped;
  std::vector<EvalRecord> evals;
  try {
    evals = store.evals(trial.id, trial.attempts);
  } catch (const InputError& e) {  // a damaged row: this trial counts as not reaching
    log.problem = e.what();
  }
  log.rows = evals.size();
  auto& columns = log.columns;
  for (const auto& e : evals) {
    columns["score"].push_back(e.accumulated_submission_time);
    columns["accumulated_submission_time"].push_back(e.accumulated_submission_time);
    columns["accumulated_eval_time"].push_back(e.accumulated_eval_time);
    columns["accumulated_logging_time"].push_back(e.accumulated_logging_time);
    columns["total_duration"].push_back(e.total_duration);
    columns["global_step"].push_back(static_cast<double>(e.step));
    columns["preemption_count"].push_back(static_cast<double>(e.preemption_count));
  }
  // Metric columns: the union over rows; a metric missing from a row is NaN there.
  for (size_t row = 0; row < evals.size(); ++row) {
    for (const auto& [name, value] : evals[row].metrics) {
      auto& column = columns[name];
      column.resize(row, NAN);
      column.push_back(value);
    }
  }
  for (auto& [name, column] : columns) column.resize(evals.size(), NAN);
  return log;
}

}  // namespace

bool StoreSource::is_store_file(const std::string& path) {
  return is_postgres_uri(path) || is_sqlite_file(path);
}

StoreSource::StoreSource(std::vector<std::string> store_paths, bool self_tuning, StudyStoreOptions options)
    : paths_(std::move(store_paths)) {
  options.read_only = true;  // scoring never writes or migrates a store
  options.create = false;
  const std::string wanted = self_tuning ? "self" : "external";
  std::map<std::string, std::string> store_of;  // experiment/workload/study_k -> the store it came from
  std::set<std::string> opened;                 // each store's file (or URI): one store given twice
  for (const auto& location : paths_) {
    if (!is_store_file(location)) throw InputError(location + ": not a study store (SQLite file or postgresql:// URI)");
    const std::string file = is_postgres_uri(location) ? location : std::filesystem::weakly_canonical(location).string();
    if (!opened.insert(file).second) throw InputError(location + ": this study store is given twice");
    StudyStore store(location, options);
    const std::string& path = store.path();  // without a URI's password
    std::map<std::string, std::string> sweep_of;  // experiment/workload/study_k -> its sweep
    int64_t other_ruleset = 0, unfinished = 0;
    for (const auto& study : store.studies()) {
      if (study.ruleset != wanted) {
        ++other_ruleset;
        continue;
      }
      // One study from two stores (a copy, or the same store given twice) would score as one study
      // whose trials are the faster copy of each: refuse rather than pick silently.
      if (const auto [seen, first] = store_of.emplace(study.name(), path); !first && seen->second != path) {
        throw InputError("study " + study.name() + " is in both " + seen->second + " and " + path +
                         "; scoring both as one submission would keep the faster copy of each trial: give one of "
                         "the stores, or copy one run's studies under another name (pacer tune --name)");
      }
      const auto [at, fresh] = sweep_of.emplace(study.name(), study.sweep);
      if (!fresh && at->second != study.sweep) {
        throw InputError(path + ": two tuning runs with other settings both name their study " + study.name() +
                         "; scoring them as one submission would mix them: give each run its own name "
                         "(pacer tune --name), or score them from separate stores");
      }
      if (std::find(submissions_.begin(), submissions_.end(), study.experiment) == submissions_.end()) {
        submissions_.push_back(study.experiment);
      }
      const std::string clock = clock_of(study.trial_spec, path + ": " + study.name());
      for (const auto& trial : store.trials(study.id)) {
        if (!is_terminal(trial.status)) {
          ++unfinished;
          continue;
        }
        trials_.push_back(trial_log(store, study, trial, path, clock));
      }
    }
    if (unfinished > 0) {  // a board half done scores as if those trials had missed: say so
      warnings_.push_back(path + ": " + std::to_string(unfinished) + " trials are not finished (pending, running or " +
                          "interrupted) and are left out; the scores are provisional until they finish");
    }
    if (other_ruleset > 0) {
      warnings_.push_back(path + ": " + std::to_string(other_ruleset) + " " + (self_tuning ? "external" : "self") +
                          "-tuning studies left out (scoring " + wanted + " tuning" +
                          (self_tuning ? ")" : "; --self-tuning scores them)"));
    }
  }
}

std::vector<TrialLog> StoreSource::trials() const { return trials_; }
std::vector<std::string> StoreSource::submissions() const { return submissions_; }

void CombinedSource::add(std::vector<TrialLog> trials, std::vector<std::string> submissions) {
  for (auto& name : submissions) {
    if (std::find(submissions_.begin(), submissions_.end(), name) != submissions_.end()) {
      throw InputError("submission '" + name + "' appears in two sources; rename one (pacer tune --name)");
    }
    submissions_.push_back(std::move(name));
  }
  for (auto& t : trials) trials_.push_back(std::move(t));
}

}  // namespace pacer
