#include "store/store_schema.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace pacer {
namespace {

// Schema migrations, in order: migration i brings a store from version i to i + 1. Never edit a
// released entry; append a new one. Written once for both backends: {id}, {int} and {real} are
// the dialect's column types (SQLite: "INTEGER PRIMARY KEY", INTEGER, REAL, as released).
const std::vector<const char*> kMigrations = {
    R"sql(
CREATE TABLE studies(
  id {id},
  identity TEXT NOT NULL UNIQUE,
  sweep TEXT NOT NULL,
  experiment TEXT NOT NULL,
  workload TEXT NOT NULL,
  algorithm TEXT NOT NULL,
  ruleset TEXT NOT NULL,
  study_index {int} NOT NULL,
  space TEXT NOT NULL,
  sampler TEXT NOT NULL,
  sampler_seed {int} NOT NULL,
  trial_options TEXT NOT NULL,
  planned_trials {int} NOT NULL,
  created_at {real} NOT NULL);
CREATE TABLE sequences(
  sweep TEXT PRIMARY KEY,
  next_position {int} NOT NULL);
CREATE TABLE trials(
  id {id},
  study_id {int} NOT NULL REFERENCES studies(id),
  trial_index {int} NOT NULL,
  position {int},
  hparams TEXT,
  seed {int} NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK(status IN ('pending','running','interrupted','complete','diverged','failed')),
  attempts {int} NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires {real},
  heartbeat_at {real},
  started_at {real},
  finished_at {real},
  outcome TEXT,
  stop_reason TEXT,
  message TEXT,
  steps {int},
  submission_time {real},
  eval_time {real},
  total_duration {real},
  time_to_target {real},
  steps_to_target {int},
  eval_index_to_target {int},
  best_validation {real},
  UNIQUE(study_id, trial_index));
CREATE INDEX trials_by_study_status ON trials(study_id, status);
CREATE TABLE evals(
  trial_id {int} NOT NULL REFERENCES trials(id),
  attempt {int} NOT NULL,
  eval_index {int} NOT NULL,
  global_step {int} NOT NULL,
  submission_time {real} NOT NULL,
  eval_time {real} NOT NULL,
  logging_time {real} NOT NULL,
  total_duration {real} NOT NULL,
  metrics TEXT NOT NULL,
  PRIMARY KEY(trial_id, attempt, eval_index));
)sql",
    // 2026-11-27: the column holds a TrialSpec (catalog/trial_spec.h): name it so; and an eval row
    // keeps the whole EvalRecord (core/eval_record.h), its preemption count included.
    R"sql(
ALTER TABLE studies RENAME COLUMN trial_options TO trial_spec;
ALTER TABLE evals ADD COLUMN preemption_count {int} NOT NULL DEFAULT 0;
)sql",
    // 2026-11-28: the intra-op threads a trial ran with (on the cpu clock they scale its times).
    R"sql(
ALTER TABLE trials ADD COLUMN threads {int};
)sql",
    // 2026-11-29: the device a trial ran on, resolved (its spec may say auto).
    R"sql(
ALTER TABLE trials ADD COLUMN device TEXT;
)sql",
};

std::string render_statement(std::string sql, const SqlDialect& dialect) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{id}", dialect.id_column},
                                   {"{int}", dialect.int_type},
                                   {"{real}", dialect.real_type}}) {
    for (size_t p = sql.find(key); p != std::string::npos; p = sql.find(key, p + value.size())) {
      sql.replace(p, key.size(), value);
    }
  }
  return sql;
}

// One migration's text, statement by statement (SQLite prepares one at a time).
void run_script(StoreDatabase& db, const std::string& script) {
  size_t start = 0;
  for (size_t end = script.find(';'); end != std::string::npos; end = script.find(';', start)) {
    const std::string statement = script.substr(start, end - start);
    if (statement.find_first_not_of(" \n\t") != std::string::npos) db.run(render_statement(statement, db.dialect()));
    start = end + 1;
  }
}

void refuse_newer(StoreDatabase& db, int64_t version, int64_t latest) {
  if (version <= latest) return;
  throw InputError(db.location() + ": the study store has schema version " + std::to_string(version) +
                   ", newer than this pacer understands (" + std::to_string(latest) + ")");
}

// A store at the latest version whose tables are not all there (dropped by hand, a damaged copy)
// is refused by name: reads found nothing and `study upgrade` reported success.
void require_tables(StoreDatabase& db) {
  for (const char* table : {"studies", "sequences", "trials", "evals"}) {
    try {
      db.run(std::string("SELECT 1 FROM ") + table + " LIMIT 0");
    } catch (const std::exception& e) {
      throw InputError(db.location() + ": a damaged pacer study store: its table '" + table +
                       "' is missing or unreadable (" + e.what() + ")");
    }
  }
}

}  // namespace

int64_t latest_store_schema() { return static_cast<int64_t>(kMigrations.size()); }

int64_t migrate_store(StoreDatabase& db, bool read_only) {
  const auto latest = static_cast<int64_t>(kMigrations.size());
  if (read_only) {
    const int64_t version = db.schema_version();
    if (version == latest) {
      require_tables(db);
      return version;
    }
    refuse_newer(db, version, latest);
    if (version == 0) throw InputError(db.location() + ": not a pacer study store (no Pacer schema)");
    db.continue_on_private_copy();
    if (db.schema_version() == latest) {  // a copy an earlier read migrated and kept
      require_tables(db);
      return version;
    }
  }
  int64_t found = 0;
  db.transaction([&](bool) {
    db.lock_for_planning();  // two processes creating one store: one creates, the other waits
    const int64_t version = found = db.schema_version();
    refuse_newer(db, version, latest);
    // A non-empty database without our version is someone else's.
    if (version == 0 && db.has_foreign_tables()) {
      throw InputError(db.location() + ": not a pacer study store (unknown tables)");
    }
    for (int64_t v = version; v < latest; ++v) run_script(db, kMigrations[static_cast<size_t>(v)]);
    if (version != latest) db.set_schema_version(latest);
    require_tables(db);
  });
  if (read_only) db.private_copy_migrated();
  return found;
}

}  // namespace pacer
