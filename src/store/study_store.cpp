#include "store/study_store.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "core/metrics_json.h"
#include "store/owner_liveness.h"
#include "store/store_database.h"
#include "store/store_rows.h"
#include "store/store_schema.h"

namespace pacer {
namespace {

StudyStoreOptions normalized(StudyStoreOptions options) {
  if (options.read_only) options.create = false;
  return options;
}

LeaseLost lease_lost(int64_t trial_id, const std::string& what) {
  return LeaseLost("trial " + std::to_string(trial_id) + ": " + what +
                   ": the lease is no longer ours (it expired and another worker took the trial)");
}

}  // namespace

std::string StudyRecord::name() const {
  return experiment + "/" + workload + "/study_" + std::to_string(study_index);
}

const char* to_string(StoredTrialStatus status) {
  switch (status) {
    case StoredTrialStatus::pending: return "pending";
    case StoredTrialStatus::running: return "running";
    case StoredTrialStatus::interrupted: return "interrupted";
    case StoredTrialStatus::complete: return "complete";
    case StoredTrialStatus::diverged: return "diverged";
    case StoredTrialStatus::failed: return "failed";
  }
  return "?";
}

StoredTrialStatus parse_stored_trial_status(const std::string& text) {
  for (auto s : {StoredTrialStatus::pending, StoredTrialStatus::running, StoredTrialStatus::interrupted,
                 StoredTrialStatus::complete, StoredTrialStatus::diverged, StoredTrialStatus::failed}) {
    if (text == to_string(s)) return s;
  }
  throw Error("unknown trial status in the study store: '" + text + "'");
}

StoredTrialStatus stored_status(TrialStatus status) {
  switch (status) {
    case TrialStatus::reached:
    case TrialStatus::not_reached:
    case TrialStatus::stopped: return StoredTrialStatus::complete;
    case TrialStatus::diverged: return StoredTrialStatus::diverged;
    case TrialStatus::failed: return StoredTrialStatus::failed;
    case TrialStatus::interrupted: return StoredTrialStatus::interrupted;
  }
  return StoredTrialStatus::failed;
}

bool is_terminal(StoredTrialStatus status) {
  return status == StoredTrialStatus::complete || status == StoredTrialStatus::diverged ||
         status == StoredTrialStatus::failed;
}

StudyStore::StudyStore(const std::string& location, StudyStoreOptions options)
    : db_(open_store_database(location, normalized(options))) {
  opened_schema_version_ = static_cast<int>(migrate_store(*db_, options.read_only));
}

StudyStore::~StudyStore() = default;
StudyStore::StudyStore(StudyStore&&) noexcept = default;

const std::string& StudyStore::path() const { return db_->location(); }

int StudyStore::schema_version() { return static_cast<int>(latest_store_schema()); }

std::string StudyStore::make_owner_id() {
  std::random_device device;
  std::ostringstream out;
  out << host_name_or_unknown() << "/" << getpid() << "/" << std::hex << device() << "/" << process_table_id();
  return out.str();
}

std::vector<StudyRecord> StudyStore::ensure_studies(const std::vector<StudyDefinition>& definitions,
                                                    const TrialFactory& make_trials) {
  std::vector<StudyRecord> records;
  StoreDatabase& db = *db_;
  db.transaction([&](bool) {
    records.clear();  // a retried transaction starts over
    db.lock_for_planning();
    for (const auto& d : definitions) {
      const std::string select = std::string("SELECT ") + kStudyColumns + " FROM studies WHERE identity = ?";
      auto found = db.run(select, {d.identity});
      StudyRecord study;
      if (!found.rows.empty()) {
        study = read_study(found.rows[0]);
      } else {
        auto inserted = db.run(
            "INSERT INTO studies(identity, sweep, experiment, workload, algorithm, ruleset, study_index, space, "
            "sampler, sampler_seed, trial_spec, planned_trials, created_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,0,?) "
            "RETURNING " + std::string(kStudyColumns),
            {d.identity, d.sweep, d.experiment, d.workload, d.algorithm, d.ruleset, int64_t{d.study_index},
             d.space_json, d.sampler, static_cast<int64_t>(d.sampler_seed), d.trial_spec, db.now()});
        study = read_study(inserted.rows.at(0));
      }
      if (d.trials > study.planned_trials) {
        const int64_t count = d.trials - study.planned_trials;
        // Positions continue the sweep's sequence: study 2 starts where study 1 ended, and trials
        // added later to study 1 come after both.
        auto seq = db.run("SELECT next_position FROM sequences WHERE sweep = ?", {d.sweep});
        const int64_t first_position = seq.rows.empty() ? 0 : seq.rows[0].int64(0);
        std::vector<NewTrial> trials = make_trials(study, study.planned_trials + 1, count, first_position);
        if (static_cast<int64_t>(trials.size()) != count) {
          throw Error("internal: the trial factory made " + std::to_string(trials.size()) + " trials, not " +
                      std::to_string(count));
        }
        for (int64_t i = 0; i < count; ++i) {
          db.run("INSERT INTO trials(study_id, trial_index, position, hparams, seed) VALUES(?,?,?,?,?)",
                 {study.id, study.planned_trials + 1 + i, sql_value(trials[i].position),
                  sql_value(trials[i].hparams_json), static_cast<int64_t>(trials[i].seed)});
        }
        db.run("INSERT INTO sequences(sweep, next_position) VALUES(?, ?) "
               "ON CONFLICT(sweep) DO UPDATE SET next_position = excluded.next_position",
               {d.sweep, first_position + count});
        db.run("UPDATE studies SET planned_trials = ? WHERE id = ?", {d.trials, study.id});
        study.planned_trials = d.trials;
      }
      records.push_back(study);
    }
  });
  return records;
}

std::optional<TrialRecord> StudyStore::claim_trial(const std::vector<int64_t>& study_ids, const std::string& owner,
                                                   double lease_sec) {
  if (study_ids.empty()) return std::nullopt;
  StoreDatabase& db = *db_;
  const SqlDialect& dialect = db.dialect();
  std::optional<TrialRecord> trial;
  std::optional<double> claimed_at;  // the first try's time: how a retry recognizes its own claim
  db.transaction([&](bool retrying) {
    trial.reset();
    const double now = db.now();
    if (!claimed_at) claimed_at = now;
    const std::string select_trial = "SELECT " + std::string(kTrialColumns) + " FROM trials WHERE id = ?";
    if (retrying) {
      // The connection broke: the earlier try may have committed. Take that claim, not a second,
      // with its lease renewed (the outage may have used it up).
      auto earlier = db.run("SELECT id FROM trials WHERE status = 'running' AND lease_owner = ? AND started_at = ?" +
                                dialect.lock_row,
                            {owner, *claimed_at});
      if (!earlier.rows.empty()) {
        const int64_t id = earlier.rows[0].int64(0);
        db.run("UPDATE trials SET lease_expires = ?, heartbeat_at = ? WHERE id = ?", {now + lease_sec, now, id});
        trial = read_trial(db.run(select_trial, {id}).rows.at(0));
        return;
      }
    }
    // The first runnable trial in (trial_index, study_id) order: pending, interrupted, running
    // under an expired lease, or running under a dead owner of this host. Under PostgreSQL the
    // row is locked and rows other claimers hold are skipped.
    std::optional<SqlRow> dead;  // id, trial_index, study_id
    auto running = db.run("SELECT id, trial_index, study_id, lease_owner FROM trials WHERE study_id IN " +
                              in_list(study_ids) + " AND status = 'running' AND lease_expires >= ? " +
                              "ORDER BY trial_index, study_id",
                          {now});
    for (const auto& row : running.rows) {
      if (!local_owner_is_dead(row.text(3))) continue;
      auto locked = db.run("SELECT id FROM trials WHERE id = ? AND status = 'running' AND lease_owner = ?" +
                               dialect.skip_locked,
                           {row.int64(0), row.text(3)});
      if (locked.rows.empty()) continue;
      dead = row;
      break;
    }
    std::string before_dead;
    std::vector<SqlValue> params = {now};
    if (dead) {
      before_dead = " AND (trial_index < ? OR (trial_index = ? AND study_id < ?))";
      params.insert(params.end(), {dead->int64(1), dead->int64(1), dead->int64(2)});
    }
    auto runnable = db.run("SELECT id FROM trials WHERE study_id IN " + in_list(study_ids) +
                               " AND (status IN ('pending','interrupted') OR (status = 'running' AND "
                               "(lease_expires IS NULL OR lease_expires < ?)))" + before_dead +
                               " ORDER BY trial_index, study_id LIMIT 1" + dialect.skip_locked,
                           params);
    std::optional<int64_t> chosen;
    if (!runnable.rows.empty()) chosen = runnable.rows[0].int64(0);
    else if (dead) chosen = dead->int64(0);
    if (!chosen) return;
    db.run("UPDATE trials SET status = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires = ?, "
           "heartbeat_at = ?, started_at = ?, finished_at = NULL WHERE id = ?",
           {owner, now + lease_sec, now, *claimed_at, *chosen});
    trial = read_trial(db.run(select_trial, {*chosen}).rows.at(0));
  });
  return trial;
}

bool StudyStore::heartbeat(int64_t trial_id, const std::string& owner, double lease_sec) {
  bool renewed = false;
  db_->transaction([&](bool) {
    const double now = db_->now();
    renewed = db_->run("UPDATE trials SET lease_expires = ?, heartbeat_at = ? WHERE id = ? AND lease_owner = ? AND "
                       "status = 'running'",
                       {now + lease_sec, now, trial_id, owner})
                  .affected > 0;
  });
  return renewed;
}

void StudyStore::record_eval(int64_t trial_id, const std::string& owner, int attempt, int64_t eval_index,
                             const EvalRecord& eval) {
  const std::vector<SqlValue> row = eval_row(trial_id, attempt, eval_index, eval);
  StoreDatabase& db = *db_;
  db.transaction([&](bool) {
    // The trial row is locked (PostgreSQL) so that the lease cannot change hands before the insert.
    auto owned = db.run("SELECT 1 FROM trials WHERE id = ? AND lease_owner = ? AND status = 'running' AND attempts = ?" +
                            db.dialect().lock_row,
                        {trial_id, owner, int64_t{attempt}});
    if (owned.rows.empty()) throw lease_lost(trial_id, "recording an eval");
    // An upsert: a retried transaction writes the same row again.
    db.run(std::string("INSERT INTO evals(trial_id, attempt, ") + kEvalColumns +
               ") VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(trial_id, attempt, eval_index) DO UPDATE SET "
               "global_step = excluded.global_step, submission_time = excluded.submission_time, eval_time = "
               "excluded.eval_time, logging_time = excluded.logging_time, total_duration = excluded.total_duration, "
               "preemption_count = excluded.preemption_count, metrics = excluded.metrics",
           row);
  });
}

void StudyStore::finish_trial(int64_t trial_id, const std::string& owner, const TrialOutcome& o) {
  // An interrupted trial has no result: its worker releases it (release_trial) for a re-run.
  if (o.status == TrialStatus::interrupted) throw Error("finish_trial: trial " + std::to_string(trial_id) + " was interrupted; release it");
  const std::string status = to_string(stored_status(o.status));
  StoreDatabase& db = *db_;
  std::optional<double> finished_at;  // the first try's: how a retry recognizes its own result
  db.transaction([&](bool retrying) {
    if (!finished_at) finished_at = db.now();
    std::vector<SqlValue> row = {status};
    const std::vector<SqlValue> outcome = outcome_cells(o);
    row.insert(row.end(), outcome.begin(), outcome.end());
    row.insert(row.end(), {*finished_at, trial_id, owner});
    const int64_t changed =
        db.run("UPDATE trials SET status = ?, outcome = ?, stop_reason = ?, message = ?, steps = ?, submission_time = ?, "
               "eval_time = ?, total_duration = ?, time_to_target = ?, steps_to_target = ?, eval_index_to_target = ?, "
               "best_validation = ?, threads = ?, device = ?, finished_at = ?, lease_owner = NULL, lease_expires = NULL "
               "WHERE id = ? AND lease_owner = ? AND status = 'running'",
               row)
            .affected;
    if (changed > 0) return;
    if (retrying) {
      // The earlier try may have committed before the connection broke: then its result is there,
      // stamped with its finish time (a later owner's result would carry another).
      auto done = db.run("SELECT 1 FROM trials WHERE id = ? AND lease_owner IS NULL AND status = ? AND finished_at = ?",
                         {trial_id, status, *finished_at});
      if (!done.rows.empty()) return;
    }
    throw lease_lost(trial_id, "finishing");
  });
}

void StudyStore::release_trial(int64_t trial_id, const std::string& owner, const std::string& message) {
  db_->transaction([&](bool) {
    db_->run("UPDATE trials SET status = 'interrupted', message = ?, lease_owner = NULL, lease_expires = NULL, "
             "finished_at = ? WHERE id = ? AND lease_owner = ? AND status = 'running'",
             {message, db_->now(), trial_id, owner});
  });
}

std::vector<StudyRecord> StudyStore::studies() const {
  std::vector<StudyRecord> out;
  for (const auto& row : db_->run(std::string("SELECT ") + kStudyColumns + " FROM studies ORDER BY id", {}).rows) {
    out.push_back(read_study(row));
  }
  return out;
}

std::optional<StudyRecord> StudyStore::study(int64_t id) const {
  auto found = db_->run(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE id = ?", {id});
  if (found.rows.empty()) return std::nullopt;
  return read_study(found.rows[0]);
}

std::optional<TrialRecord> StudyStore::trial(int64_t id) const {
  auto found = db_->run(std::string("SELECT ") + kTrialColumns + " FROM trials WHERE id = ?", {id});
  if (found.rows.empty()) return std::nullopt;
  return read_trial(found.rows[0]);
}

std::vector<TrialRecord> StudyStore::trials(int64_t study_id) const {
  std::vector<TrialRecord> out;
  const std::string sql = std::string("SELECT ") + kTrialColumns + " FROM trials WHERE study_id = ? ORDER BY trial_index";
  for (const auto& row : db_->run(sql, {study_id}).rows) out.push_back(read_trial(row));
  return out;
}

std::vector<EvalRecord> StudyStore::evals(int64_t trial_id, std::optional<int> attempt) const {
  int64_t chosen = 0;
  if (attempt) {
    chosen = *attempt;
  } else {
    auto latest = db_->run("SELECT max(attempt) FROM evals WHERE trial_id = ?", {trial_id});
    if (latest.rows.empty() || latest.rows[0].is_null(0)) return {};
    chosen = latest.rows[0].int64(0);
  }
  std::vector<EvalRecord> out;
  const std::string sql =
      std::string("SELECT ") + kEvalColumns + " FROM evals WHERE trial_id = ? AND attempt = ? ORDER BY eval_index";
  const std::string where = trial_where(*db_, trial_id, chosen);
  for (const auto& row : db_->run(sql, {trial_id, chosen}).rows) out.push_back(read_eval(row, where));
  return out;
}

int64_t StudyStore::delete_studies(const std::vector<int64_t>& study_ids, bool even_running) {
  int64_t trials = 0;
  StoreDatabase& db = *db_;
  db.transaction([&](bool retrying) {
    const int64_t earlier = trials;  // a retry after a commit that landed deletes nothing more
    trials = 0;
    db.lock_for_planning();
    for (int64_t id : study_ids) {
      // Lock the study's trials: no worker claims one or records an eval until this commits.
      db.run("SELECT id FROM trials WHERE study_id = ?" + db.dialect().lock_row, {id});
      if (!even_running) {
        auto live = db.run("SELECT count(*) FROM trials WHERE study_id = ? AND status = 'running' AND lease_expires > ?",
                           {id, db.now()});
        if (live.rows.at(0).int64(0) > 0) {
          throw InputError(db.location() + ": study " + std::to_string(id) +
                           " has a trial a worker is running (its lease is live); " +
                           "stop the worker first, or delete anyway with --force");
        }
      }
      db.run("DELETE FROM evals WHERE trial_id IN (SELECT id FROM trials WHERE study_id = ?)", {id});
      trials += db.run("DELETE FROM trials WHERE study_id = ?", {id}).affected;
      db.run("DELETE FROM studies WHERE id = ?", {id});
    }
    if (retrying && trials == 0) trials = earlier;
  });
  return trials;
}

StudyProgress StudyStore::progress(const std::vector<int64_t>& study_ids) const {
  StudyProgress p;
  if (study_ids.empty()) return p;
  auto counts = db_->run("SELECT status, count(*) FROM trials WHERE study_id IN " + in_list(study_ids) +
                             " GROUP BY status",
                         {});
  for (const auto& row : counts.rows) {
    const auto status = parse_stored_trial_status(row.text(0));
    const int64_t n = row.int64(1);
    if (is_terminal(status)) p.done += n;
    else if (status == StoredTrialStatus::running) p.running += n;
    else p.pending += n;
  }
  return p;
}

StoreActivity StudyStore::activity() const {
  const auto r = db_->run(
      "SELECT (SELECT count(*) FROM studies), (SELECT coalesce(max(id), 0) FROM studies), (SELECT count(*) FROM trials), "
      "(SELECT count(*) FROM trials WHERE status IN ('complete', 'diverged', 'failed')), "
      "(SELECT count(*) FROM trials WHERE status = 'running'), (SELECT coalesce(sum(attempts), 0) FROM trials), "
      "(SELECT count(*) FROM evals), (SELECT coalesce(max(finished_at), 0) FROM trials)",
      {});
  StoreActivity a;
  if (r.rows.empty()) return a;
  const SqlRow& row = r.rows[0];
  a.studies = row.int64(0);
  a.last_study_id = row.int64(1);
  a.trials = row.int64(2);
  a.finished = row.int64(3);
  a.running = row.int64(4);
  a.attempts = row.int64(5);
  a.evals = row.int64(6);
  a.last_finished_at = row.real(7);
  return a;
}

std::optional<int64_t> StudyStore::best_eval_index_to_target(int64_t study_id) const {
  auto found = db_->run("SELECT min(eval_index_to_target) FROM trials WHERE study_id = ? AND status IN "
                        "('complete', 'diverged', 'failed') AND eval_index_to_target IS NOT NULL",
                        {study_id});
  if (found.rows.empty()) return std::nullopt;
  return found.rows[0].optional_int64(0);
}

StudySnapshot StudyStore::snapshot(int64_t study_id) const {
  StudySnapshot out;
  StoreDatabase& db = *db_;
  // One transaction: a consistent picture even while workers write.
  db.transaction([&](bool) {
    if (!db.dialect().snapshot_reads.empty()) db.run(db.dialect().snapshot_reads);
    out = StudySnapshot();
    auto found = db.run(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE id = ?", {study_id});
    if (found.rows.empty()) throw InputError(db.location() + ": no study " + std::to_string(study_id));
    out.study = read_study(found.rows[0]);
    auto seq = db.run("SELECT next_position FROM sequences WHERE sweep = ?", {out.study.sweep});
    out.sweep_next_position = seq.rows.empty() ? 0 : seq.rows[0].int64(0);
    const std::string trials_sql =
        std::string("SELECT ") + kTrialColumns + " FROM trials WHERE study_id = ? ORDER BY trial_index";
    for (const auto& row : db.run(trials_sql, {study_id}).rows) out.trials.push_back(read_trial(row));
    for (const auto& trial : out.trials) {
      std::vector<std::pair<int, EvalRecord>> evals;
      const std::string sql = std::string("SELECT attempt, ") + kEvalColumns +
                              " FROM evals WHERE trial_id = ? ORDER BY attempt, eval_index";
      for (const auto& row : db.run(sql, {trial.id}).rows) {
        SqlRow rest;
        rest.cells.assign(row.cells.begin() + 1, row.cells.end());
        const int attempt = static_cast<int>(row.int64(0));
        evals.emplace_back(attempt, read_eval(rest, trial_where(db, trial.id, attempt)));
      }
      out.evals.push_back(std::move(evals));
    }
  });
  return out;
}

std::vector<StudyRecord> StudyStore::import_studies(const std::vector<StudySnapshot>& studies) {
  std::vector<StudyRecord> records;
  StoreDatabase& db = *db_;
  db.transaction([&](bool retrying) {
    records.clear();
    db.lock_for_planning();
    if (retrying && !studies.empty()) {
      // The earlier try may have committed before the connection broke: then every study is here.
      for (const auto& snap : studies) {
        auto found = db.run(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE identity = ?",
                            {snap.study.identity});
        if (found.rows.empty()) break;
        records.push_back(read_study(found.rows[0]));
      }
      if (records.size() == studies.size()) return;
      records.clear();
    }
    std::set<std::string> identities;
    for (const auto& snap : studies) {
      const StudyRecord& s = snap.study;
      if (!identities.insert(s.identity).second ||
          !db.run("SELECT id FROM studies WHERE identity = ?", {s.identity}).rows.empty()) {
        throw InputError(db.location() + ": already holds study " + s.name() +
                         " (same identity); nothing was copied (delete it there first to replace it)");
      }
      auto inserted = db.run(
          "INSERT INTO studies(identity, sweep, experiment, workload, algorithm, ruleset, study_index, space, sampler, "
          "sampler_seed, trial_spec, planned_trials, created_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING " +
              std::string(kStudyColumns),
          {s.identity, s.sweep, s.experiment, s.workload, s.algorithm, s.ruleset, int64_t{s.study_index}, s.space_json,
           s.sampler, static_cast<int64_t>(s.sampler_seed), s.trial_spec, s.planned_trials, s.created_at});
      const StudyRecord added = read_study(inserted.rows.at(0));
      // The sweep's sequence must not hand out positions the copied trials already use.
      db.run("INSERT INTO sequences(sweep, next_position) VALUES(?, ?) ON CONFLICT(sweep) DO UPDATE SET "
             "next_position = CASE WHEN excluded.next_position > sequences.next_position THEN excluded.next_position "
             "ELSE sequences.next_position END",
             {s.sweep, snap.sweep_next_position});
      for (size_t i = 0; i < snap.trials.size(); ++i) {
        const TrialRecord& t = snap.trials[i];
        std::vector<SqlValue> row = {
            added.id, t.index, sql_value(t.position), sql_value(t.hparams_json), static_cast<int64_t>(t.seed),
            std::string(to_string(t.status)), int64_t{t.attempts},
            t.lease_owner.empty() ? SqlValue() : SqlValue(t.lease_owner), sql_value(t.lease_expires),
            sql_value(t.heartbeat_at), sql_value(t.started_at), sql_value(t.finished_at)};
        const std::vector<SqlValue> outcome = outcome_cells(t);
        row.insert(row.end(), outcome.begin(), outcome.end());
        auto trial = db.run(
            "INSERT INTO trials(study_id, trial_index, position, hparams, seed, status, attempts, lease_owner, "
            "lease_expires, heartbeat_at, started_at, finished_at, outcome, stop_reason, message, steps, "
            "submission_time, eval_time, total_duration, time_to_target, steps_to_target, eval_index_to_target, "
            "best_validation, threads, device) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id",
            row);
        const int64_t trial_id = trial.rows.at(0).int64(0);
        std::map<int, int64_t> next_index;  // per attempt
        for (const auto& [attempt, e] : snap.evals.at(i)) {
          db.run(std::string("INSERT INTO evals(trial_id, attempt, ") + kEvalColumns + ") VALUES(?,?,?,?,?,?,?,?,?,?)",
                 eval_row(trial_id, attempt, next_index[attempt]++, e));
        }
      }
      records.push_back(added);
    }
  });
  return records;
}

}  // namespace pacer
