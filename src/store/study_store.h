#pragma once
// The study store: the source of truth of tuning studies, in a SQLite file (one machine) or a
// PostgreSQL database (many machines), chosen by the location: a path, or postgresql://...
// Both backends run the same logic with the same versioned schema (store/store_database.h).
// Studies own trials; trials own their eval measurements. Several processes share one store:
// claiming a trial is one transaction (SQLite: IMMEDIATE; PostgreSQL: FOR UPDATE SKIP LOCKED), a
// running trial holds a lease that its worker renews (heartbeat), and a trial whose lease
// expired, or whose worker on this host is gone, is claimed again. Every write checks the lease,
// so a worker that lost its trial cannot overwrite the new owner's results. Torch-free.
//
//   pacer::StudyStore store("runs/tune.db");   // or "postgresql://pacer@dbhost/studies"
//   std::vector<pacer::StudyRecord> studies = store.ensure_studies(definitions, make_trials);
//   if (auto trial = store.claim_trial(study_ids, owner, 60.0)) {
//     store.record_eval(trial->id, owner, trial->attempts, /*eval_index=*/0, eval);  // an EvalRecord
//     store.finish_trial(trial->id, owner, outcome);
//   }
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/eval_record.h"
#include "core/trial_outcome.h"

namespace pacer {

class StoreDatabase;

// What makes a study: everything the trials depend on. `identity` is unique in the store; the
// same command run again finds the same studies (resume), a different space or budget does not.
struct StudyDefinition {
  std::string identity;       // unique key (JSON of the fields below plus the study index)
  std::string sweep;          // identity shared by the studies 1..N of one workload
  std::string experiment;     // submission name (log folder, leaderboard)
  std::string workload, algorithm, ruleset;
  int study_index = 1;        // k of study_<k>
  std::string space_json;     // empty under self-tuning
  std::string sampler;        // halton, random, grid, list; empty under self-tuning
  uint64_t sampler_seed = 0;
  std::string trial_spec;     // TrialSpec::to_json(): budget, eval cadence, limits, batch size
  int64_t trials = 0;         // wanted; a study only ever grows
};

struct NewTrial {
  std::optional<std::string> hparams_json;  // nullopt: self-tuning
  uint64_t seed = 0;
  std::optional<int64_t> position;          // the sampler position of its point
};

struct StudyRecord {
  int64_t id = 0;
  std::string identity, sweep, experiment, workload, algorithm, ruleset;
  int study_index = 1;
  std::string space_json, sampler;
  uint64_t sampler_seed = 0;
  std::string trial_spec;     // TrialSpec::to_json()
  int64_t planned_trials = 0;
  double created_at = 0.0;
  std::string name() const;  // "<experiment>/<workload>/study_<k>"
};

enum class StoredTrialStatus { pending, running, interrupted, complete, diverged, failed };
const char* to_string(StoredTrialStatus status);
StoredTrialStatus parse_stored_trial_status(const std::string& text);
bool is_terminal(StoredTrialStatus status);  // complete, diverged, failed

// A trial as stored; `result` is the outcome its worker handed to finish_trial, as it gave it.
struct TrialRecord {
  int64_t id = 0, study_id = 0;
  int64_t index = 1;                // i of trial_<i>, 1-based
  std::optional<int64_t> position;
  std::optional<std::string> hparams_json;
  uint64_t seed = 0;
  StoredTrialStatus status = StoredTrialStatus::pending;
  int attempts = 0;
  std::string lease_owner;
  std::optional<double> lease_expires, heartbeat_at, started_at, finished_at;
  std::optional<TrialOutcome> result;  // set when the trial ended (complete, diverged, failed)
  std::string interruption;            // not ended: why its last attempt was released, if it was
};

// The stored status of an ended trial: reached, not_reached and stopped are `complete`.
StoredTrialStatus stored_status(TrialStatus status);

struct StudyProgress {
  int64_t pending = 0, running = 0, done = 0;
  bool finished() const { return pending == 0 && running == 0; }
};

// A cheap fingerprint of what a store holds, for a reader that polls it (pacer serve): it changes
// when a study is added or removed, a trial is added, claimed, released or finished, or an eval is
// recorded (`evals`). Heartbeats do not change it.
struct StoreActivity {
  int64_t studies = 0, last_study_id = 0, trials = 0, finished = 0, running = 0, attempts = 0, evals = 0;
  double last_finished_at = 0.0;
  // Studies, trials, claims and endings: what progress tables and leaderboards show.
  bool same_trials(const StoreActivity& o) const {
    return studies == o.studies && last_study_id == o.last_study_id && trials == o.trials && finished == o.finished &&
           running == o.running && attempts == o.attempts && last_finished_at == o.last_finished_at;
  }
  bool same_finished(const StoreActivity& o) const {
    return studies == o.studies && last_study_id == o.last_study_id && finished == o.finished &&
           last_finished_at == o.last_finished_at;
  }
  bool operator==(const StoreActivity& o) const { return same_trials(o) && evals == o.evals; }
  bool operator!=(const StoreActivity& o) const { return !(*this == o); }
};

// A whole study as stored, every attempt's evals included: what `pacer study copy` moves.
struct StudySnapshot {
  StudyRecord study;
  std::vector<TrialRecord> trials;
  // Per trial: (attempt, eval), by attempt then eval index (0, 1, ... within an attempt).
  std::vector<std::vector<std::pair<int, EvalRecord>>> evals;
  int64_t sweep_next_position = 0;  // the sweep's sequence position
};

struct StudyStoreOptions {
  bool create = true;
  int busy_timeout_ms = 120000;        // SQLite: writers wait this long for each other before failing
  double reconnect_timeout_sec = 600;  // PostgreSQL: how long a lost connection is retried
  // PostgreSQL: how long the first connection is retried while the server is unreachable or
  // starting (0: one attempt, a clear error at once; tuning workers wait out a restart).
  double connect_retry_sec = 0;
  // Commands that only read (list, show, export, score, analyze, board --no-run, serve): the store
  // is opened read-only and never written or migrated. A store of an older schema is read through
  // an upgraded copy in memory (SQLite) or refused with the upgrade command (PostgreSQL); only
  // `pacer study upgrade` and commands that write migrate it, as optuna asks for an explicit
  // `optuna storage upgrade`. Implies create = false.
  bool read_only = false;

  static StudyStoreOptions reading() {
    StudyStoreOptions o;
    o.create = false;
    o.read_only = true;
    return o;
  }
};

class StudyStore {
 public:
  // A SQLite file path or a postgresql:// URI (store/store_database.h).
  explicit StudyStore(const std::string& location, StudyStoreOptions options = {});
  ~StudyStore();
  StudyStore(StudyStore&&) noexcept;
  StudyStore(const StudyStore&) = delete;
  StudyStore& operator=(const StudyStore&) = delete;

  static int schema_version();  // the version this build writes
  // The version the store held when opened (older than schema_version() before a migration, or
  // for a read-only store read through an upgraded copy).
  int opened_schema_version() const { return opened_schema_version_; }
  // The location as given, without a URI's password: for messages.
  const std::string& path() const;

  // In one transaction: finds or creates each study and grows it to `trials` trials; new trials
  // come from make_trials(study, first new trial index, count, first sequence position) where
  // positions continue the study's sweep sequence (so every study gets distinct points).
  using TrialFactory = std::function<std::vector<NewTrial>(const StudyRecord& study, int64_t first_index,
                                                           int64_t count, int64_t first_position)>;
  std::vector<StudyRecord> ensure_studies(const std::vector<StudyDefinition>& definitions,
                                          const TrialFactory& make_trials);

  // Atomically takes the next runnable trial of these studies (pending, interrupted, or running
  // with an expired lease or a dead local owner), marks it running under `owner` for lease_sec.
  std::optional<TrialRecord> claim_trial(const std::vector<int64_t>& study_ids, const std::string& owner,
                                         double lease_sec);
  // Renews the lease; false when the trial is no longer this owner's.
  bool heartbeat(int64_t trial_id, const std::string& owner, double lease_sec);
  // Each of these throws LeaseLost when the trial is no longer this owner's.
  // The attempt's eval_index-th eval (0-based); recording it again replaces it (a retry).
  void record_eval(int64_t trial_id, const std::string& owner, int attempt, int64_t eval_index,
                   const EvalRecord& eval);
  void finish_trial(int64_t trial_id, const std::string& owner, const TrialOutcome& outcome);
  // Gives the trial back as interrupted (Ctrl-C): it is re-run on resume. No-op if not ours.
  void release_trial(int64_t trial_id, const std::string& owner, const std::string& message);

  std::vector<StudyRecord> studies() const;
  std::optional<StudyRecord> study(int64_t id) const;
  std::optional<TrialRecord> trial(int64_t id) const;  // none: no trial of that id
  std::vector<TrialRecord> trials(int64_t study_id) const;
  // The evals of the trial's latest attempt (or of `attempt`), in order. InputError naming the
  // trial and eval when a stored row's metrics are not a JSON object (a damaged store).
  std::vector<EvalRecord> evals(int64_t trial_id, std::optional<int> attempt = std::nullopt) const;
  StudyProgress progress(const std::vector<int64_t>& study_ids) const;
  // One query: the counts StoreActivity compares.
  StoreActivity activity() const;
  // The smallest eval index at which a finished trial of the study reached its target (what
  // picks a study's best trial, before time): the bound a racing trial cannot beat once its own
  // evals pass it. None while no finished trial has reached.
  std::optional<int64_t> best_eval_index_to_target(int64_t study_id) const;

  // Removes these studies with their trials and evals, in one transaction (all or nothing).
  // InputError, and nothing removed, when one of them has a trial running under a live lease
  // (a worker is on it) unless `even_running`. Returns the number of trials removed.
  int64_t delete_studies(const std::vector<int64_t>& study_ids, bool even_running = false);

  // Copying between stores: a study with every trial and every attempt's evals; adding such
  // studies (new ids, everything else as it was) in one transaction. InputError, and nothing
  // added, when a study of that identity is already here.
  StudySnapshot snapshot(int64_t study_id) const;
  std::vector<StudyRecord> import_studies(const std::vector<StudySnapshot>& studies);

  // "host/pid/nonce": identifies this process as a lease owner.
  static std::string make_owner_id();

 private:
  std::unique_ptr<StoreDatabase> db_;
  int opened_schema_version_ = 0;
};

// Thrown when a worker writes to a trial whose lease it no longer holds.
class LeaseLost : public Error {
 public:
  using Error::Error;
};

}  // namespace pacer
