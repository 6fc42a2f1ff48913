#include "serve/dashboard.h"

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "analyze/analysis_page.h"
#include "analyze/curve_diagnosis.h"
#include "analyze/study_analysis.h"
#include "analyze/study_data.h"
#include "report/score_charts.h"
#include "report/xml_escape.h"
#include "score/rules.h"
#include "score/score_outputs.h"
#include "score/scoring.h"
#include "score/store_source.h"
#include "serve/dashboard_assets.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/board.h"
#include "tune/board_part.h"
#include "tune/study_summary.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

using MonotonicClock = std::chrono::steady_clock;
using json = nlohmann::ordered_json;

double seconds_since(MonotonicClock::time_point t) { return std::chrono::duration<double>(MonotonicClock::now() - t).count(); }

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Store text is not always valid UTF-8 (a message, a hyperparameter kept as text): replaced, not thrown.
template <typename Json>
std::string json_text(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(); }
template <typename T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json();
}
json optional_number(const std::optional<double>& v) { return v ? number_or_null(*v) : json(); }

// A JSON text from the store (hyperparameters, a space, trial settings): parsed when it parses,
// else kept as the text (a damaged row shows as it is instead of failing the page).
json stored_json(const std::optional<std::string>& text) {
  if (!text || text->empty()) return json();
  json j = json::parse(*text, nullptr, false);
  return j.is_discarded() ? json(*text) : j;
}

}  // namespace

// What tells a SQLite file apart from its replacement, and (for a store read through a private
// copy, which never sees later writes) from its own later state. Not in the anonymous namespace:
// Dashboard::Impl holds one.
namespace dashboard_detail {

struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  int64_t size = 0, modified_ns = 0, wal_size = 0, wal_modified_ns = 0;
  bool same_file(const FileIdentity& o) const { return device == o.device && inode == o.inode; }
  bool same_contents(const FileIdentity& o) const {
    return same_file(o) && size == o.size && modified_ns == o.modified_ns && wal_size == o.wal_size &&
           wal_modified_ns == o.wal_modified_ns;
  }
};

std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  FileIdentity id;
  id.device = st.st_dev;
  id.inode = st.st_ino;
  id.size = st.st_size;
  id.modified_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  struct stat wal {};
  if (::stat((path + "-wal").c_str(), &wal) == 0) {
    id.wal_size = wal.st_size;
    id.wal_modified_ns = static_cast<int64_t>(wal.st_mtim.tv_sec) * 1000000000 + wal.st_mtim.tv_nsec;
  }
  return id;
}

}  // namespace dashboard_detail

namespace {

using dashboard_detail::FileIdentity;
using dashboard_detail::identity_of;

// The workload's objective as scoring reads it; none for a workload this build does not know.
struct Objective {
  std::string metric;  // "validation/accuracy"
  bool higher_is_better = true;
  std::optional<double> target;
};

Objective objective_of(const std::string& workload) {
  Objective o;
  try {
    const WorkloadSpec& spec = workload_spec(workload);
    o.metric = "validation/" + spec.target_metric;
    o.higher_is_better = spec.higher_is_better;
    o.target = spec.validation_target;
  } catch (const InputError&) {
  }
  return o;
}

json trial_row(const TrialRecord& t, bool best) {
  json j;
  j["id"] = t.id;
  j["trial"] = t.index;
  j["status"] = to_string(t.status);
  const TrialOutcome* r = t.result ? &*t.result : nullptr;
  j["outcome"] = r ? to_string(r->status) : "";
  j["stop_reason"] = r ? to_string(r->stop_reason) : "";
  j["message"] = r ? r->message : t.interruption;
  j["attempts"] = t.attempts;
  j["seed"] = std::to_string(t.seed);  // 64-bit: a string, exact in every reader
  j["best"] = best;
  j["hyperparameters"] = stored_json(t.hparams_json);
  j["time_to_target"] = r ? optional_number(r->time_to_target) : json();
  j["steps_to_target"] = r ? optional_json(r->steps_to_target) : json();
  j["best_validation"] = r ? optional_number(r->best_validation) : json();
  j["steps"] = r ? json(r->steps) : json();
  j["submission_time"] = r ? number_or_null(r->submission_time) : json();
  j["total_duration"] = r ? number_or_null(r->total_duration) : json();
  j["started_at"] = optional_number(t.started_at);
  j["finished_at"] = optional_number(t.finished_at);
  j["heartbeat_at"] = t.status == StoredTrialStatus::running ? optional_number(t.heartbeat_at) : json();
  j["worker"] = t.status == StoredTrialStatus::running ? json(t.lease_owner) : json();
  return j;
}

// A running trial's latest eval and its best objective so far: "best so far" while it trains.
void add_live_state(json& row, const std::vector<EvalRecord>& evals, const Objective& objective) {
  if (evals.empty()) return;
  const EvalRecord& last = evals.back();
  row["steps"] = last.step;
  row["submission_time"] = number_or_null(last.accumulated_submission_time);
  std::optional<double> best;
  for (const auto& e : evals) {
    const auto v = finite_metric(e, objective.metric);
    if (v && (!best || (objective.higher_is_better ? *v > *best : *v < *best))) best = v;
  }
  row["best_validation"] = optional_number(best);
}

json evals_json(const std::vector<EvalRecord>& evals) {
  json out = json::array();
  for (const auto& e : evals) {
    json j;
    j["step"] = e.step;
    j["submission_time"] = number_or_null(e.accumulated_submission_time);
    j["eval_time"] = number_or_null(e.accumulated_eval_time);
    j["total_duration"] = number_or_null(e.total_duration);
    json metrics = json::object();
    for (const auto& [name, value] : e.metrics) metrics[name] = number_or_null(value);
    j["metrics"] = metrics;
    out.push_back(j);
  }
  return out;
}

// A chart-sized SVG that says why there is no chart yet.
std::string message_svg(const std::string& id, const std::string& message) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + xml_escape(id) +
         "\" class=\"curve\" width=\"560\" height=\"60\"><text x=\"10\" y=\"35\" font-family=\"sans-serif\" "
         "font-size=\"14\" fill=\"#666\">" +
         xml_escape(message) + "</text></svg>";
}


}  // namespace

struct Dashboard::Impl {
  std::string location, printable;
  DashboardOptions options;
  bool postgres = false;

  std::mutex mutex;  // the reader below and every cache but the scores
  std::unique_ptr<StudyStore> store;
  dashboard_detail::FileIdentity opened;
  bool private_copy = false;  // an older schema read through an upgraded copy: reopen when the file changes
  bool fresh = false;         // `activity` read since the store was opened
  std::optional<std::string> failure;  // why the last look at the store failed
  MonotonicClock::time_point failed_at;
  MonotonicClock::time_point checked_at;
  StoreActivity activity;
  std::vector<StudyRecord> studies;
  std::optional<std::string> overview;
  MonotonicClock::time_point overview_at;  // leases expire without a write: the overview is redone now and then
  std::map<int64_t, std::string> study_pages, trial_pages, curves, analyses;

  std::mutex score_mutex;  // scoring reads through a connection of its own: the reader stays free
  struct Scored {
    StoreActivity at;
    MonotonicClock::time_point when;
    std::string json, svg;
  };
  std::map<std::string, Scored> scored;
  std::atomic<int64_t> scorings{0};

  StudyStoreOptions store_options() const {
    StudyStoreOptions o = StudyStoreOptions::reading();
    o.busy_timeout_ms = options.busy_timeout_ms;
    o.reconnect_timeout_sec = 5;
    return o;
  }

  void open() {
    if (!postgres) {
      const auto id = identity_of(location);
      if (!id) throw StoreUnavailable(printable + " does not exist (deleted or moved?); the page reads it again when it is back");
      opened = *id;
    }
    store = std::make_unique<StudyStore>(location, store_options());
    private_copy = store->opened_schema_version() < StudyStore::schema_version();
    fresh = false;
  }

  void fail(const std::string& why) {
    forget();
    failure = why;
    failed_at = MonotonicClock::now();
  }

  void forget() {
    store.reset();
    fresh = false;
    overview.reset();
    study_pages.clear();
    trial_pages.clear();
    curves.clear();
    analyses.clear();
  }

  // Under `mutex`: the store open and `activity` at most check_every_sec old; the caches dropped
  // for what changed. StoreUnavailable when the store cannot be read.
  void refresh() {
    if (store && fresh && seconds_since(checked_at) < options.check_every_sec) return;
    // A store that just failed is not retried by every request (a reconnect can take seconds).
    if (!store && failure && seconds_since(failed_at) < options.check_every_sec) throw StoreUnavailable(*failure);
    try {
      if (store && !postgres) {
        const auto id = identity_of(location);
        if (!id) throw StoreUnavailable(printable + " no longer exists (deleted or moved); the page reads it again when it is back");
        // Replaced (another inode), rewritten (a private copy's file), or another store copied onto
        // this file in place (its size or modification time: a WAL store's own writes change only
        // its -wal file until a checkpoint, which then costs one reopen).
        const bool copied_onto = id->size != opened.size || id->modified_ns != opened.modified_ns;
        if (!id->same_file(opened) || copied_onto || (private_copy && !id->same_contents(opened))) forget();
      }
      if (!store) open();
      const StoreActivity now = store->activity();
      if (!fresh || !now.same_trials(activity)) {
        studies = store->studies();
        overview.reset();
      }
      if (!fresh || !now.same_finished(activity)) analyses.clear();
      if (!fresh || now != activity) {
        study_pages.clear();
        trial_pages.clear();
        curves.clear();
      }
      activity = now;
      fresh = true;
      checked_at = MonotonicClock::now();
      failure.reset();
    } catch (const StoreUnavailable& e) {
      fail(e.what());
      throw;
    } catch (const std::exception& e) {
      fail(printable + " cannot be read now: " + e.what());
      throw StoreUnavailable(*failure);
    }
  }

  const StudyRecord& study_by_id(int64_t id) const {
    for (const auto& s : studies)
      if (s.id == id) return s;
    throw NotFoundError("no study with id " + std::to_string(id) + " in " + printable);
  }

  std::string compute_overview() {
    const std::vector<SweepSummary> sweeps = summarize_studies(*store, studies);
    std::map<int64_t, const std::vector<TrialRecord>*> trials_of;  // read once, for both
    for (const auto& sweep : sweeps)
      for (const auto& s : sweep.studies) trials_of[s.study.id] = &s.trials;
    BoardProgress p;
    bool estimated = true;
    try {
      p = board_progress(studies, [&](const StudyRecord& s) { return *trials_of.at(s.id); });
    } catch (const std::exception&) {  // a workload or trial settings this build cannot read: counts, no ETA
      estimated = false;
      for (const auto& sweep : sweeps) {
        for (const auto& st : sweep.studies) {
          p.done += st.progress.done;
          p.running += st.progress.running;
          p.total += st.progress.done + st.progress.running + st.progress.pending;
        }
      }
    }
    const double now_unix = unix_now();
    std::set<std::string> workers;  // the lease owners of running trials whose lease is alive: the workers at work
    json sweeps_out = json::array();
    for (const auto& sweep : sweeps) {
      json sj;
      sj["experiment"] = sweep.experiment;
      sj["workload"] = sweep.workload;
      sj["algorithm"] = sweep.algorithm;
      sj["ruleset"] = sweep.ruleset;
      sj["finished"] = sweep.finished();
      sj["time_to_target"] = number_or_null(sweep.median_time);
      json studies_out = json::array();
      for (const auto& s : sweep.studies) {
        for (const auto& t : s.trials)
          if (t.status == StoredTrialStatus::running && t.lease_expires && *t.lease_expires > now_unix) {
            workers.insert(t.lease_owner);
          }
        json j;
        j["id"] = s.study.id;
        j["study"] = s.study.study_index;
        j["name"] = s.study.name();
        j["done"] = s.progress.done;
        j["running"] = s.progress.running;
        j["pending"] = s.progress.pending;
        j["best_trial"] = optional_json(s.best_trial);
        j["time_to_target"] = number_or_null(s.time_to_target);
        j["steps_to_target"] = optional_json(s.steps_to_target);
        studies_out.push_back(j);
      }
      sj["studies"] = studies_out;
      sweeps_out.push_back(sj);
    }
    const int active = static_cast<int>(workers.size());
    json progress;
    progress["done"] = p.done;
    progress["total"] = p.total;
    progress["running"] = p.running;
    progress["stopped"] = p.stopped;
    progress["workers"] = active;
    progress["done_trial_sec"] = p.done_trial_sec;
    progress["remaining_trial_sec"] = p.remaining_trial_sec;
    // As `pacer board` estimates it: the remaining trial time shared over the workers at work.
    const double eta = estimated ? p.remaining_trial_sec / std::max(1, active) : NAN;
    progress["eta_sec"] = number_or_null(eta);
    progress["eta"] = format_duration(eta);  // "?" without an estimate
    progress["trial_time_done"] = format_duration(p.done_trial_sec);
    json j;
    j["store"] = printable;
    j["schema"] = store->opened_schema_version();
    j["read_through_copy"] = private_copy;
    j["read_at"] = unix_now();
    j["activity"] = {{"studies", activity.studies}, {"finished", activity.finished},
                     {"running", activity.running}, {"evals", activity.evals}};
    j["progress"] = progress;
    j["parts"] = board_parts(studies);
    j["sweeps"] = sweeps_out;
    return json_text(j);
  }

  std::string compute_study(const StudyRecord& study) {
    const std::vector<SweepSummary> sweeps = summarize_studies(*store, {study});
    const StudySummary& summary = sweeps.at(0).studies.at(0);
    const Objective objective = objective_of(study.workload);
    json trials = json::array();
    for (const auto& t : summary.trials) {
      json row = trial_row(t, summary.best_trial && *summary.best_trial == t.index);
      if (t.status == StoredTrialStatus::running) add_live_state(row, store->evals(t.id), objective);
      trials.push_back(row);
    }
    json s;
    s["id"] = study.id;
    s["name"] = study.name();
    s["experiment"] = study.experiment;
    s["workload"] = study.workload;
    s["algorithm"] = study.algorithm;
    s["ruleset"] = study.ruleset;
    s["study"] = study.study_index;
    s["sampler"] = study.sampler;
    s["sampler_seed"] = std::to_string(study.sampler_seed);
    s["planned_trials"] = study.planned_trials;
    s["space"] = stored_json(study.space_json);
    s["trial_spec"] = stored_json(study.trial_spec);
    json j;
    j["study"] = s;
    j["objective"] = {{"metric", objective.metric},
                      {"higher_is_better", objective.higher_is_better},
                      {"target", optional_number(objective.target)}};
    j["progress"] = {{"done", summary.progress.done},
                     {"running", summary.progress.running},
                     {"pending", summary.progress.pending}};
    j["best_trial"] = optional_json(summary.best_trial);
    j["time_to_target"] = number_or_null(summary.time_to_target);
    j["steps_to_target"] = optional_json(summary.steps_to_target);
    j["trials"] = trials;
    return json_text(j);
  }

  // A trial of the store with its study: NotFoundError when there is none.
  std::pair<TrialRecord, StudyRecord> trial_by_id(int64_t id) {
    const auto trial = store->trial(id);
    if (!trial) throw NotFoundError("no trial with id " + std::to_string(id) + " in " + printable);
    return {*trial, study_by_id(trial->study_id)};
  }

  std::string compute_trial(int64_t id) {
    const auto [trial, study] = trial_by_id(id);
    const Objective objective = objective_of(study.workload);
    const TrialData data = load_trial_data(*store, study, trial, objective.metric, objective.higher_is_better);
    json row = trial_row(trial, false);
    if (trial.status == StoredTrialStatus::running) add_live_state(row, data.evals, objective);
    json j;
    j["trial"] = row;
    j["study"] = {{"id", study.id}, {"name", study.name()}, {"workload", study.workload}, {"ruleset", study.ruleset}};
    j["objective"] = {{"metric", objective.metric},
                      {"higher_is_better", objective.higher_is_better},
                      {"target", optional_number(objective.target)}};
    j["evals"] = evals_json(data.evals);
    if (!objective.metric.empty() && !data.evals.empty()) {
      const CurveDiagnosis d = diagnose_curve(data, objective.metric, objective.higher_is_better);
      j["diagnosis"] = {{"verdicts", d.verdicts}, {"note", d.note}, {"best_step", d.best_step},
                        {"final_step", d.final_step}};
    }
    return json_text(j);
  }

  std::string compute_curve(int64_t id) {
    const auto [trial, study] = trial_by_id(id);
    const Objective objective = objective_of(study.workload);
    if (objective.metric.empty()) return message_svg("trial-curve", "workload " + study.workload + " is not known to this build");
    const TrialData data = load_trial_data(*store, study, trial, objective.metric, objective.higher_is_better);
    if (data.evals.empty()) return message_svg("trial-curve", "no evals yet");
    return curve_diagnosis_svg(diagnose_curve(data, objective.metric, objective.higher_is_better), objective.metric,
                               "trial-curve");
  }

  std::string compute_analysis(const StudyRecord& study) {
    const std::string title = "Pacer study analysis: " + study.name();
    try {
      return render_analysis_html(analyze_study(load_study_data(*store, study.name(), {study})));
    } catch (const InputError& e) {  // no finished trial yet, or a space it cannot read
      return dashboard_message_page(title, e.what());
    }
  }

  // A copy, taken under the lock: another request may rescore the part meanwhile.
  Scored score(const std::string& part, const std::string& axis_name) {
    const TimeAxis axis = parse_time_axis(axis_name);
    StoreActivity at;
    {
      std::lock_guard<std::mutex> lock(mutex);
      guarded([&] {
        at = activity;
        const auto parts = board_parts(studies);
        if (std::find(parts.begin(), parts.end(), part) == parts.end()) {
          std::string list;
          for (const auto& p : parts) list += (list.empty() ? "" : ", ") + p;
          throw NotFoundError("no part '" + part + "' in " + printable + " (parts: " + (list.empty() ? "none" : list) + ")");
        }
        return std::string();
      });
    }
    std::lock_guard<std::mutex> lock(score_mutex);
    const std::string key = part + "|" + axis_name;
    const auto found = scored.find(key);
    if (found != scored.end() &&
        (found->second.at.same_finished(at) || seconds_since(found->second.when) < options.score_every_sec)) {
      return found->second;
    }
    ScoreOptions so;
    so.rules = options.rules.empty() ? default_rules_name() : options.rules;
    so.time_axis = axis;
    so.self_tuning = board_part_is_self_tuning(part);
    nlohmann::json j;
    std::string svg;
    std::vector<std::string> warnings;
    try {
      // `pacer score STORE --board-part PART`: the same source, selection and scoring.
      std::unique_ptr<StoreSource> source;
      try {
        source = std::make_unique<StoreSource>(std::vector<std::string>{location}, so.self_tuning, store_options());
      } catch (const std::exception& e) {
        throw StoreUnavailable(printable + " cannot be scored now: " + e.what());
      }
      std::vector<TrialLog> trials = source->trials();
      std::vector<std::string> names = source->submissions();
      warnings = source->warnings();
      keep_board_part(part, so.self_tuning, trials, names);
      CombinedSource combined;
      combined.add(std::move(trials), std::move(names));
      const ScoreResult result = score_submissions(combined, so);
      j = scores_json(result);
      svg = profile_chart_svg(result);
    } catch (const InputError& e) {  // nothing to score yet (no finished trial of the part)
      j = nlohmann::json::object();
      j["submissions"] = nlohmann::json::array();
      j["message"] = e.what();
      svg = message_svg("performance-profiles", "no leaderboard yet: " + std::string(e.what()));
    }
    j["part"] = part;
    j["time_axis"] = axis_name;
    j["scored_at"] = unix_now();
    j["finished_trials"] = at.finished;
    j["store_warnings"] = warnings;
    Scored fresh{at, MonotonicClock::now(), json_text(j), std::move(svg)};  // complete before it is cached
    ++scorings;
    scored[key] = fresh;
    return fresh;
  }

  // Under `mutex`: a failure to read the store is StoreUnavailable (and the reader is opened
  // anew next time); a missing id stays NotFoundError.
  template <typename Compute>
  std::string guarded(Compute compute) {
    try {
      refresh();
      return compute();
    } catch (const NotFoundError&) {
      throw;
    } catch (const StoreUnavailable&) {
      forget();
      throw;
    } catch (const std::exception& e) {
      forget();
      throw StoreUnavailable(printable + " cannot be read now: " + e.what());
    }
  }

  // Under `mutex`, through `cache`: computed once per store state.
  template <typename Compute>
  std::string cached(std::map<int64_t, std::string>& cache, int64_t id, Compute compute) {
    const auto found = cache.find(id);
    if (found != cache.end()) return found->second;
    std::string text = compute();
    if (cache.size() > 256) cache.clear();  // bounded: a crawler over every id cannot grow it without end
    cache[id] = text;
    return text;
  }
};

Dashboard::Dashboard(std::string location, DashboardOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->location = std::move(location);
  impl_->printable = printable_store_location(impl_->location);
  impl_->options = std::move(options);
  impl_->postgres = is_postgres_uri(impl_->location);
}

Dashboard::~Dashboard() = default;

void Dashboard::check() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (!impl_->postgres && !identity_of(impl_->location)) {
    throw InputError(impl_->location + " does not exist: pacer serve takes a study store (a SQLite file that "
                     "pacer tune or pacer board wrote, or a postgresql:// URI)");
  }
  impl_->forget();
  impl_->open();  // InputError as it comes: not a store, a newer schema
  impl_->refresh();
}

const std::string& Dashboard::location() const { return impl_->printable; }

std::string Dashboard::overview_json() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->guarded([&] {
    if (!impl_->overview || seconds_since(impl_->overview_at) > 30.0) {
      impl_->overview = impl_->compute_overview();
      impl_->overview_at = MonotonicClock::now();
    }
    return *impl_->overview;
  });
}

std::string Dashboard::leaderboard_json(const std::string& part, const std::string& time_axis) {
  return impl_->score(part, time_axis).json;
}

std::string Dashboard::profile_svg(const std::string& part, const std::string& time_axis) {
  return impl_->score(part, time_axis).svg;
}

std::string Dashboard::study_json(int64_t study_id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->guarded([&] {
    const StudyRecord& study = impl_->study_by_id(study_id);
    return impl_->cached(impl_->study_pages, study_id, [&] { return impl_->compute_study(study); });
  });
}

std::string Dashboard::trial_json(int64_t trial_id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->guarded(
      [&] { return impl_->cached(impl_->trial_pages, trial_id, [&] { return impl_->compute_trial(trial_id); }); });
}

std::string Dashboard::trial_curve_svg(int64_t trial_id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->guarded(
      [&] { return impl_->cached(impl_->curves, trial_id, [&] { return impl_->compute_curve(trial_id); }); });
}

std::string Dashboard::analysis_html(int64_t study_id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->guarded([&] {
    const StudyRecord& study = impl_->study_by_id(study_id);
    return impl_->cached(impl_->analyses, study_id, [&] { return impl_->compute_analysis(study); });
  });
}

int64_t Dashboard::scorings() const { return impl_->scorings.load(); }

}  // namespace pacer
