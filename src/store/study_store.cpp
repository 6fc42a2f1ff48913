#include "store/study_store.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <random>
#include <sstream>

#include "store/sqlite_database.h"

namespace pacer {
namespace {

// Schema migrations, in order: migration i brings a store from version i to i + 1. Never edit a
// released entry; append a new one.
const std::vector<const char*> kMigrations = {
    R"sql(
CREATE TABLE studies(
  id INTEGER PRIMARY KEY,
  identity TEXT NOT NULL UNIQUE,
  sweep TEXT NOT NULL,
  experiment TEXT NOT NULL,
  workload TEXT NOT NULL,
  algorithm TEXT NOT NULL,
  ruleset TEXT NOT NULL,
  study_index INTEGER NOT NULL,
  space TEXT NOT NULL,
  sampler TEXT NOT NULL,
  sampler_seed INTEGER NOT NULL,
  trial_options TEXT NOT NULL,
  planned_trials INTEGER NOT NULL,
  created_at REAL NOT NULL);
CREATE TABLE sequences(
  sweep TEXT PRIMARY KEY,
  next_position INTEGER NOT NULL);
CREATE TABLE trials(
  id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL REFERENCES studies(id),
  trial_index INTEGER NOT NULL,
  position INTEGER,
  hparams TEXT,
  seed INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK(status IN ('pending','running','interrupted','complete','diverged','failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires REAL,
  heartbeat_at REAL,
  started_at REAL,
  finished_at REAL,
  outcome TEXT,
  stop_reason TEXT,
  message TEXT,
  steps INTEGER,
  submission_time REAL,
  eval_time REAL,
  total_duration REAL,
  time_to_target REAL,
  steps_to_target INTEGER,
  eval_index_to_target INTEGER,
  best_validation REAL,
  UNIQUE(study_id, trial_index));
CREATE INDEX trials_by_study_status ON trials(study_id, status);
CREATE TABLE evals(
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  attempt INTEGER NOT NULL,
  eval_index INTEGER NOT NULL,
  global_step INTEGER NOT NULL,
  submission_time REAL NOT NULL,
  eval_time REAL NOT NULL,
  logging_time REAL NOT NULL,
  total_duration REAL NOT NULL,
  metrics TEXT NOT NULL,
  PRIMARY KEY(trial_id, attempt, eval_index));
)sql",
};

double wall_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string host_name_or_unknown() {
  char buffer[256] = {0};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown";
  return buffer;
}

// An owner "host/pid/nonce" on this host whose process no longer exists (killed worker): its
// trial need not wait for the lease to expire.
bool local_owner_is_dead(const std::string& owner) {
  const auto first = owner.find('/');
  const auto second = owner.find('/', first + 1);
  if (first == std::string::npos || second == std::string::npos) return false;
  if (owner.substr(0, first) != host_name_or_unknown()) return false;
  const long pid = std::strtol(owner.substr(first + 1, second - first - 1).c_str(), nullptr, 10);
  if (pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

std::string in_list(const std::vector<int64_t>& ids) {
  std::ostringstream out;
  out << "(";
  for (size_t i = 0; i < ids.size(); ++i) out << (i ? "," : "") << ids[i];
  out << ")";
  return out.str();
}

const char* kStudyColumns =
    "id, identity, sweep, experiment, workload, algorithm, ruleset, study_index, space, sampler, sampler_seed, "
    "trial_options, planned_trials, created_at";

StudyRecord read_study(const SqliteStatement& q) {
  StudyRecord s;
  s.id = q.column_int64(0);
  s.identity = q.column_text(1);
  s.sweep = q.column_text(2);
  s.experiment = q.column_text(3);
  s.workload = q.column_text(4);
  s.algorithm = q.column_text(5);
  s.ruleset = q.column_text(6);
  s.study_index = static_cast<int>(q.column_int64(7));
  s.space_json = q.column_text(8);
  s.sampler = q.column_text(9);
  s.sampler_seed = static_cast<uint64_t>(q.column_int64(10));
  s.trial_options = q.column_text(11);
  s.planned_trials = q.column_int64(12);
  s.created_at = q.column_double(13);
  return s;
}

const char* kTrialColumns =
    "id, study_id, trial_index, position, hparams, seed, status, attempts, lease_owner, lease_expires, "
    "heartbeat_at, started_at, finished_at, outcome, stop_reason, message, steps, submission_time, eval_time, "
    "total_duration, time_to_target, steps_to_target, eval_index_to_target, best_validation";

TrialRecord read_trial(const SqliteStatement& q) {
  TrialRecord t;
  t.id = q.column_int64(0);
  t.study_id = q.column_int64(1);
  t.index = q.column_int64(2);
  t.position = q.column_optional_int64(3);
  if (!q.is_null(4)) t.hparams_json = q.column_text(4);
  t.seed = static_cast<uint64_t>(q.column_int64(5));
  t.status = parse_stored_trial_status(q.column_text(6));
  t.attempts = static_cast<int>(q.column_int64(7));
  t.lease_owner = q.column_text(8);
  t.lease_expires = q.column_optional_double(9);
  t.heartbeat_at = q.column_optional_double(10);
  t.started_at = q.column_optional_double(11);
  t.finished_at = q.column_optional_double(12);
  t.outcome = q.column_text(13);
  t.stop_reason = q.column_text(14);
  t.message = q.column_text(15);
  t.steps = q.column_optional_int64(16);
  t.submission_time = q.column_optional_double(17);
  t.eval_time = q.column_optional_double(18);
  t.total_duration = q.column_optional_double(19);
  t.time_to_target = q.column_optional_double(20);
  t.steps_to_target = q.column_optional_int64(21);
  t.eval_index_to_target = q.column_optional_int64(22);
  t.best_validation = q.column_optional_double(23);
  return t;
}

// Before anything is written: a command that only reads must not turn an empty or foreign file
// into a store, and nothing may read or append to a damaged one.
void check_store_file(SqliteDatabase& db, bool create) {
  int64_t version = 0;
  try {
    auto q = db.prepare("PRAGMA user_version");  // a file that is not SQLite fails here
    q.step();
    version = q.column_int64(0);
  } catch (const InputError& e) {
    throw InputError(db.path() + ": not a pacer study store (" + e.what() + ")");
  }
  if (version == 0 && !create) {
    throw InputError(db.path() + ": not a pacer study store (an empty file or another SQLite database); " +
                     "pacer tune creates one");
  }
  if (version == 0) return;
  auto check = db.prepare("PRAGMA quick_check(1)");
  check.step();
  std::string verdict = check.column_text(0);
  if (verdict != "ok") {
    for (auto& c : verdict)
      if (c == '\n') c = ' ';  // one line
    throw InputError(db.path() + ": the study store is damaged (SQLite quick_check: " + verdict.substr(0, 200) +
                     "); restore it from a copy");
  }
}

void migrate(SqliteDatabase& db) {
  // WAL lets readers (study show, score) run while workers write; NORMAL sync is durable across
  // process crashes, which is the failure we guard against.
  db.exec("PRAGMA journal_mode=WAL");
  db.exec("PRAGMA synchronous=NORMAL");
  db.exec("PRAGMA foreign_keys=ON");
  ImmediateTransaction tx(db);
  auto q = db.prepare("PRAGMA user_version");
  q.step();
  const int64_t version = q.column_int64(0);
  const auto latest = static_cast<int64_t>(kMigrations.size());
  if (version > latest) {
    throw InputError(db.path() + ": the study store has schema version " + std::to_string(version) +
                     ", newer than this pacer understands (" + std::to_string(latest) + ")");
  }
  if (version == 0) {
    // A non-empty file without our version is someone else's database.
    auto tables = db.prepare("SELECT count(*) FROM sqlite_master");
    tables.step();
    if (tables.column_int64(0) > 0) throw InputError(db.path() + ": not a pacer study store (unknown tables)");
  }
  for (int64_t v = version; v < latest; ++v) db.exec(kMigrations[static_cast<size_t>(v)]);
  if (version != latest) db.exec("PRAGMA user_version = " + std::to_string(latest));
  tx.commit();
}

void require_owned(SqliteDatabase& db, int64_t trial_id, const std::string& what) {
  if (db.changes() == 0) {
    throw LeaseLost("trial " + std::to_string(trial_id) + ": " + what +
                    ": the lease is no longer ours (it expired and another worker took the trial)");
  }
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

bool is_terminal(StoredTrialStatus status) {
  return status == StoredTrialStatus::complete || status == StoredTrialStatus::diverged ||
         status == StoredTrialStatus::failed;
}

StudyStore::StudyStore(const std::string& path, StudyStoreOptions options) : path_(path) {
  if (!options.create && access(path.c_str(), F_OK) != 0) throw InputError(path + ": no such study store");
  db_ = std::make_unique<SqliteDatabase>(path, options.create, options.busy_timeout_ms);
  check_store_file(*db_, options.create);
  migrate(*db_);
}

StudyStore::~StudyStore() = default;

int StudyStore::schema_version() { return static_cast<int>(kMigrations.size()); }

std::string StudyStore::make_owner_id() {
  std::random_device device;
  std::ostringstream out;
  out << host_name_or_unknown() << "/" << getpid() << "/" << std::hex << device();
  return out.str();
}

std::vector<StudyRecord> StudyStore::ensure_studies(const std::vector<StudyDefinition>& definitions,
                                                    const TrialFactory& make_trials) {
  std::vector<StudyRecord> records;
  ImmediateTransaction tx(*db_);
  for (const auto& d : definitions) {
    auto find = db_->prepare(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE identity = ?");
    find.bind(1, d.identity);
    StudyRecord study;
    if (find.step()) {
      study = read_study(find);
    } else {
      auto insert = db_->prepare(
          "INSERT INTO studies(identity, sweep, experiment, workload, algorithm, ruleset, study_index, space, "
          "sampler, sampler_seed, trial_options, planned_trials, created_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,0,?)");
      insert.bind(1, d.identity);
      insert.bind(2, d.sweep);
      insert.bind(3, d.experiment);
      insert.bind(4, d.workload);
      insert.bind(5, d.algorithm);
      insert.bind(6, d.ruleset);
      insert.bind(7, d.study_index);
      insert.bind(8, d.space_json);
      insert.bind(9, d.sampler);
      insert.bind(10, static_cast<int64_t>(d.sampler_seed));
      insert.bind(11, d.trial_options);
      insert.bind(12, wall_now());
      insert.run();
      auto again = db_->prepare(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE id = ?");
      again.bind(1, db_->last_insert_rowid());
      again.step();
      study = read_study(again);
    }
    if (d.trials > study.planned_trials) {
      const int64_t count = d.trials - study.planned_trials;
      // Positions continue the sweep's sequence: study 2 starts where study 1 ended, and trials
      // added later to study 1 come after both.
      auto seq = db_->prepare("SELECT next_position FROM sequences WHERE sweep = ?");
      seq.bind(1, d.sweep);
      const int64_t first_position = seq.step() ? seq.column_int64(0) : 0;
      std::vector<NewTrial> trials = make_trials(study, study.planned_trials + 1, count, first_position);
      if (static_cast<int64_t>(trials.size()) != count) {
        throw Error("internal: the trial factory made " + std::to_string(trials.size()) + " trials, not " +
                    std::to_string(count));
      }
      for (int64_t i = 0; i < count; ++i) {
        auto insert = db_->prepare("INSERT INTO trials(study_id, trial_index, position, hparams, seed) VALUES(?,?,?,?,?)");
        insert.bind(1, study.id);
        insert.bind(2, study.planned_trials + 1 + i);
        insert.bind(3, trials[i].position);
        insert.bind(4, trials[i].hparams_json);
        insert.bind(5, static_cast<int64_t>(trials[i].seed));
        insert.run();
      }
      auto upsert = db_->prepare(
          "INSERT INTO sequences(sweep, next_position) VALUES(?, ?) "
          "ON CONFLICT(sweep) DO UPDATE SET next_position = excluded.next_position");
      upsert.bind(1, d.sweep);
      upsert.bind(2, first_position + count);
      upsert.run();
      auto grow = db_->prepare("UPDATE studies SET planned_trials = ? WHERE id = ?");
      grow.bind(1, d.trials);
      grow.bind(2, study.id);
      grow.run();
      study.planned_trials = d.trials;
    }
    records.push_back(study);
  }
  tx.commit();
  return records;
}

std::optional<TrialRecord> StudyStore::claim_trial(const std::vector<int64_t>& study_ids, const std::string& owner,
                                                   double lease_sec) {
  if (study_ids.empty()) return std::nullopt;
  ImmediateTransaction tx(*db_);
  const double now = wall_now();
  std::optional<int64_t> chosen;
  auto runnable = db_->prepare(
      "SELECT id, status, lease_owner, lease_expires FROM trials WHERE study_id IN " + in_list(study_ids) +
      " AND status IN ('pending','interrupted','running') ORDER BY trial_index, study_id");
  while (runnable.step()) {
    const std::string status = runnable.column_text(1);
    if (status != "running") {
      chosen = runnable.column_int64(0);
      break;
    }
    const double expires = runnable.is_null(3) ? 0.0 : runnable.column_double(3);
    if (expires < now || local_owner_is_dead(runnable.column_text(2))) {
      chosen = runnable.column_int64(0);
      break;
    }
  }
  if (!chosen) return std::nullopt;
  auto take = db_->prepare(
      "UPDATE trials SET status = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires = ?, "
      "heartbeat_at = ?, started_at = ?, finished_at = NULL WHERE id = ?");
  take.bind(1, owner);
  take.bind(2, now + lease_sec);
  take.bind(3, now);
  take.bind(4, now);
  take.bind(5, *chosen);
  take.run();
  auto read = db_->prepare(std::string("SELECT ") + kTrialColumns + " FROM trials WHERE id = ?");
  read.bind(1, *chosen);
  read.step();
  TrialRecord trial = read_trial(read);
  tx.commit();
  return trial;
}

bool StudyStore::heartbeat(int64_t trial_id, const std::string& owner, double lease_sec) {
  const double now = wall_now();
  ImmediateTransaction tx(*db_);
  auto q = db_->prepare(
      "UPDATE trials SET lease_expires = ?, heartbeat_at = ? WHERE id = ? AND lease_owner = ? AND status = 'running'");
  q.bind(1, now + lease_sec);
  q.bind(2, now);
  q.bind(3, trial_id);
  q.bind(4, owner);
  q.run();
  const bool ours = db_->changes() > 0;
  tx.commit();
  return ours;
}

void StudyStore::record_eval(int64_t trial_id, const std::string& owner, int attempt, const StoredEval& eval) {
  ImmediateTransaction tx(*db_);
  auto q = db_->prepare(
      "INSERT OR REPLACE INTO evals(trial_id, attempt, eval_index, global_step, submission_time, eval_time, "
      "logging_time, total_duration, metrics) SELECT ?,?,?,?,?,?,?,?,? WHERE EXISTS (SELECT 1 FROM trials WHERE "
      "id = ? AND lease_owner = ? AND status = 'running' AND attempts = ?)");
  q.bind(1, trial_id);
  q.bind(2, attempt);
  q.bind(3, eval.eval_index);
  q.bind(4, eval.global_step);
  q.bind(5, eval.submission_time);
  q.bind(6, eval.eval_time);
  q.bind(7, eval.logging_time);
  q.bind(8, eval.total_duration);
  q.bind(9, eval.metrics_json);
  q.bind(10, trial_id);
  q.bind(11, owner);
  q.bind(12, attempt);
  q.run();
  require_owned(*db_, trial_id, "recording an eval");
  tx.commit();
}

void StudyStore::finish_trial(int64_t trial_id, const std::string& owner, const TrialOutcome& o) {
  if (!is_terminal(o.status)) throw Error("finish_trial: status must be complete, diverged or failed");
  ImmediateTransaction tx(*db_);
  auto q = db_->prepare(
      "UPDATE trials SET status = ?, outcome = ?, stop_reason = ?, message = ?, steps = ?, submission_time = ?, "
      "eval_time = ?, total_duration = ?, time_to_target = ?, steps_to_target = ?, eval_index_to_target = ?, "
      "best_validation = ?, finished_at = ?, lease_owner = NULL, lease_expires = NULL "
      "WHERE id = ? AND lease_owner = ? AND status = 'running'");
  q.bind(1, to_string(o.status));
  q.bind(2, o.outcome);
  q.bind(3, o.stop_reason);
  q.bind(4, o.message);
  q.bind(5, o.steps);
  q.bind(6, o.submission_time);
  q.bind(7, o.eval_time);
  q.bind(8, o.total_duration);
  q.bind(9, o.time_to_target);
  q.bind(10, o.steps_to_target);
  q.bind(11, o.eval_index_to_target);
  q.bind(12, o.best_validation);
  q.bind(13, wall_now());
  q.bind(14, trial_id);
  q.bind(15, owner);
  q.run();
  require_owned(*db_, trial_id, "finishing");
  tx.commit();
}

void StudyStore::release_trial(int64_t trial_id, const std::string& owner, const std::string& message) {
  ImmediateTransaction tx(*db_);
  auto q = db_->prepare(
      "UPDATE trials SET status = 'interrupted', message = ?, lease_owner = NULL, lease_expires = NULL, "
      "finished_at = ? WHERE id = ? AND lease_owner = ? AND status = 'running'");
  q.bind(1, message);
  q.bind(2, wall_now());
  q.bind(3, trial_id);
  q.bind(4, owner);
  q.run();
  tx.commit();
}

std::vector<StudyRecord> StudyStore::studies() const {
  std::vector<StudyRecord> out;
  auto q = db_->prepare(std::string("SELECT ") + kStudyColumns + " FROM studies ORDER BY id");
  while (q.step()) out.push_back(read_study(q));
  return out;
}

std::optional<StudyRecord> StudyStore::study(int64_t id) const {
  auto q = db_->prepare(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE id = ?");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return read_study(q);
}

std::vector<TrialRecord> StudyStore::trials(int64_t study_id) const {
  std::vector<TrialRecord> out;
  auto q = db_->prepare(std::string("SELECT ") + kTrialColumns + " FROM trials WHERE study_id = ? ORDER BY trial_index");
  q.bind(1, study_id);
  while (q.step()) out.push_back(read_trial(q));
  return out;
}

std::vector<StoredEval> StudyStore::evals(int64_t trial_id, std::optional<int> attempt) const {
  int chosen = 0;
  if (attempt) {
    chosen = *attempt;
  } else {
    auto latest = db_->prepare("SELECT max(attempt) FROM evals WHERE trial_id = ?");
    latest.bind(1, trial_id);
    if (!latest.step() || latest.is_null(0)) return {};
    chosen = static_cast<int>(latest.column_int64(0));
  }
  std::vector<StoredEval> out;
  auto q = db_->prepare(
      "SELECT eval_index, global_step, submission_time, eval_time, logging_time, total_duration, metrics FROM evals "
      "WHERE trial_id = ? AND attempt = ? ORDER BY eval_index");
  q.bind(1, trial_id);
  q.bind(2, chosen);
  while (q.step()) {
    StoredEval e;
    e.eval_index = q.column_int64(0);
    e.global_step = q.column_int64(1);
    e.submission_time = q.column_double(2);
    e.eval_time = q.column_double(3);
    e.logging_time = q.column_double(4);
    e.total_duration = q.column_double(5);
    e.metrics_json = q.column_text(6);
    out.push_back(e);
  }
  return out;
}

int64_t StudyStore::delete_studies(const std::vector<int64_t>& study_ids, bool even_running) {
  ImmediateTransaction tx(*db_);
  int64_t trials = 0;
  for (int64_t id : study_ids) {
    if (!even_running) {
      auto live = db_->prepare("SELECT count(*) FROM trials WHERE study_id = ? AND status = 'running' AND lease_expires > ?");
      live.bind(1, id);
      live.bind(2, wall_now());
      live.step();
      if (live.column_int64(0) > 0) {
        throw InputError(path_ + ": study " + std::to_string(id) + " has a trial a worker is running (its lease is live); " +
                         "stop the worker first, or delete anyway with --force");
      }
    }
    auto evals = db_->prepare("DELETE FROM evals WHERE trial_id IN (SELECT id FROM trials WHERE study_id = ?)");
    evals.bind(1, id);
    evals.step();
    auto gone = db_->prepare("DELETE FROM trials WHERE study_id = ?");
    gone.bind(1, id);
    gone.step();
    trials += db_->changes();
    auto study = db_->prepare("DELETE FROM studies WHERE id = ?");
    study.bind(1, id);
    study.step();
  }
  tx.commit();
  return trials;
}

StudyProgress StudyStore::progress(const std::vector<int64_t>& study_ids) const {
  StudyProgress p;
  if (study_ids.empty()) return p;
  auto q = db_->prepare("SELECT status, count(*) FROM trials WHERE study_id IN " + in_list(study_ids) +
                        " GROUP BY status");
  while (q.step()) {
    const auto status = parse_stored_trial_status(q.column_text(0));
    const int64_t n = q.column_int64(1);
    if (is_terminal(status)) p.done += n;
    else if (status == StoredTrialStatus::running) p.running += n;
    else p.pending += n;
  }
  return p;
}

}  // namespace pacer
