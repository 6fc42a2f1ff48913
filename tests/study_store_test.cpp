// The study store on both backends (one parameterized suite: SQLite, and PostgreSQL on a server
// the test starts itself): schema, idempotent planning, atomic claims under concurrency, leases
// (expiry, dead local owners, a worker killed with SIGKILL), lease checks on every write,
// interrupted trials, a server restarted mid-study, copies between backends.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/metrics_json.h"
#include "score/store_source.h"
#include "store/postgres_store_database.h"
#include "store/store_database.h"
#include "store/study_selection.h"
#include "store/study_store.h"
#include "support/input_error.h"
#include "support/postgres_server.h"
#include "tune/study_summary.h"

namespace pacer {
namespace {

// A fresh store location per test: a SQLite file in a temporary folder, or a new database on
// the test's PostgreSQL server.
class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "pacer_store_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/tune.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Skips (or, with PACER_REQUIRE_POSTGRES=1, fails) when no server can be started.
  std::string postgres_database() {
    auto& server = testing::PostgresServer::get();
    if (!server.available()) {
      if (testing::PostgresServer::required()) ADD_FAILURE() << server.reason();
      return "";
    }
    return server.create_database();
  }

  static StudyDefinition definition(int k, int64_t trials, const std::string& sweep = "sweep-a") {
    StudyDefinition d;
    d.identity = sweep + "#" + std::to_string(k);
    d.sweep = sweep;
    d.experiment = "exp";
    d.workload = "synthetic_regression";
    d.algorithm = "sgd";
    d.ruleset = "external";
    d.study_index = k;
    d.space_json = "{}";
    d.sampler = "halton";
    d.trial_spec = "{}";
    d.trials = trials;
    return d;
  }
  // Trials whose hyperparameters record their sequence position, to check distinct points.
  static StudyStore::TrialFactory factory() {
    return [](const StudyRecord&, int64_t first_index, int64_t count, int64_t first_position) {
      std::vector<NewTrial> out;
      for (int64_t i = 0; i < count; ++i) {
        NewTrial t;
        t.position = first_position + i;
        t.hparams_json = "{\"p\":" + std::to_string(first_position + i) + "}";
        t.seed = static_cast<uint64_t>(first_index + i);
        out.push_back(t);
      }
      return out;
    };
  }

  std::string dir_, path_;
};

class StudyStoreTest : public StoreFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    StoreFixture::SetUp();
    if (GetParam() == "postgresql") {
      path_ = postgres_database();
      if (path_.empty()) GTEST_SKIP() << testing::PostgresServer::get().reason();
    }
  }

  // Edits the store behind its back, as a hand or a damaged disk would. False: no sqlite3 shell.
  bool edit_by_hand(const std::string& sql) {
    if (GetParam() != "postgresql") return std::system(("sqlite3 '" + path_ + "' \"" + sql + "\" 2>/dev/null").c_str()) == 0;
    const size_t name = path_.find("@/") + 2;
    const bool edited = testing::PostgresServer::get().sql(path_.substr(name, path_.find('?') - name), sql);
    EXPECT_TRUE(edited) << sql;  // the server runs the tests: failing to edit is a failure
    return edited;
  }
};

TEST_P(StudyStoreTest, PlansStudiesOnceAndGrowsThemWithDistinctPositions) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 3), definition(2, 3)}, factory());
  ASSERT_EQ(studies.size(), 2u);
  // The same plan again changes nothing (resume).
  auto again = store.ensure_studies({definition(1, 3), definition(2, 3)}, factory());
  EXPECT_EQ(again[0].id, studies[0].id);
  EXPECT_EQ(store.trials(studies[0].id).size(), 3u);
  // Growing study 1 appends trials 4..5 whose positions continue after study 2's.
  store.ensure_studies({definition(1, 5)}, factory());
  std::set<int64_t> positions;
  for (const auto& s : store.studies()) {
    for (const auto& t : store.trials(s.id)) {
      ASSERT_TRUE(t.position.has_value());
      EXPECT_TRUE(positions.insert(*t.position).second) << "position " << *t.position << " used twice";
    }
  }
  EXPECT_EQ(positions, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  const auto trials = store.trials(studies[0].id);
  ASSERT_EQ(trials.size(), 5u);
  EXPECT_EQ(trials[3].index, 4);
  EXPECT_EQ(*trials[3].position, 6);
  // A smaller count never shrinks a study.
  store.ensure_studies({definition(1, 2)}, factory());
  EXPECT_EQ(store.trials(studies[0].id).size(), 5u);
}

TEST_P(StudyStoreTest, ClaimRecordFinishAndProgress) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 2)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  const std::string me = StudyStore::make_owner_id();
  auto t1 = store.claim_trial(ids, me, 60);
  ASSERT_TRUE(t1.has_value());
  EXPECT_EQ(t1->index, 1);
  EXPECT_EQ(t1->status, StoredTrialStatus::running);
  EXPECT_EQ(t1->attempts, 1);
  EvalRecord e;  // every field of the record, a non-finite metric included
  e.step = 10;
  e.accumulated_submission_time = 0.5;
  e.accumulated_eval_time = 0.25;
  e.accumulated_logging_time = 0.125;
  e.total_duration = 1.0 / 3.0;
  e.preemption_count = 2;
  e.metrics = {{"validation/loss", 0.3}, {"train/loss", NAN}};
  store.record_eval(t1->id, me, t1->attempts, 0, e);
  TrialOutcome o;
  o.status = TrialStatus::reached;
  o.steps = 10;
  o.time_to_target = 0.5;
  o.eval_index_to_target = 0;
  o.stop_reason = StopReason::targets_reached;
  o.submission_time = 0.75;
  o.threads = 2;
  o.device = "cuda:1";
  store.finish_trial(t1->id, me, o);
  // The outcome reads back as given; `reached` is stored as complete.
  const TrialRecord ended = store.trials(ids[0]).at(0);
  EXPECT_EQ(ended.status, StoredTrialStatus::complete);
  ASSERT_TRUE(ended.result);
  EXPECT_EQ(ended.result->status, TrialStatus::reached);
  EXPECT_EQ(ended.result->stop_reason, StopReason::targets_reached);
  EXPECT_EQ(ended.result->steps, 10);
  EXPECT_EQ(ended.result->submission_time, 0.75);
  EXPECT_EQ(ended.result->time_to_target, std::optional<double>(0.5));
  EXPECT_EQ(ended.result->eval_index_to_target, std::optional<int64_t>(0));
  EXPECT_FALSE(ended.result->best_validation);
  EXPECT_EQ(ended.result->threads, 2);
  EXPECT_EQ(ended.result->device, "cuda:1");
  EXPECT_FALSE(store.trials(ids[0]).at(1).result);  // pending
  EXPECT_EQ(store.progress(ids).done, 1);
  EXPECT_EQ(store.progress(ids).pending, 1);
  auto evals = store.evals(t1->id);
  ASSERT_EQ(evals.size(), 1u);
  EXPECT_EQ(evals[0].step, 10);
  EXPECT_EQ(evals[0].accumulated_submission_time, 0.5);
  EXPECT_EQ(evals[0].accumulated_eval_time, 0.25);
  EXPECT_EQ(evals[0].accumulated_logging_time, 0.125);
  EXPECT_EQ(evals[0].total_duration, 1.0 / 3.0);
  EXPECT_EQ(evals[0].preemption_count, 2);
  ASSERT_EQ(evals[0].metrics.size(), 2u);
  EXPECT_EQ(evals[0].metrics.at("validation/loss"), 0.3);
  EXPECT_TRUE(std::isnan(evals[0].metrics.at("train/loss")));
  // Finished trials are never claimed again.
  auto t2 = store.claim_trial(ids, me, 60);
  ASSERT_TRUE(t2.has_value());
  EXPECT_EQ(t2->index, 2);
  EXPECT_FALSE(store.claim_trial(ids, me, 60).has_value());  // t2 is leased
}

TEST_P(StudyStoreTest, DeleteRemovesStudiesTrialsAndEvalsButNotARunningOne) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 2), definition(2, 2)}, factory());
  const std::string me = StudyStore::make_owner_id();
  auto t = store.claim_trial({studies[0].id}, me, 60);
  ASSERT_TRUE(t.has_value());
  EvalRecord e;
  store.record_eval(t->id, me, t->attempts, 0, e);
  // A trial under a live lease: refused, and nothing is removed (one transaction).
  EXPECT_THROW(store.delete_studies({studies[1].id, studies[0].id}), InputError);
  EXPECT_EQ(store.studies().size(), 2u);
  EXPECT_EQ(store.delete_studies({studies[1].id}), 2);
  ASSERT_EQ(store.studies().size(), 1u);
  EXPECT_EQ(store.delete_studies({studies[0].id}, /*even_running=*/true), 2);
  EXPECT_TRUE(store.studies().empty());
  EXPECT_TRUE(store.evals(t->id).empty());
  // The same definitions plan the studies again.
  EXPECT_EQ(store.ensure_studies({definition(1, 2)}, factory()).size(), 1u);
}

TEST_P(StudyStoreTest, ExpiredLeaseIsReclaimedAndTheOldOwnerCannotWrite) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  auto first = store.claim_trial(ids, "otherhost/1/a", 0.05);
  ASSERT_TRUE(first);
  EvalRecord e;
  store.record_eval(first->id, "otherhost/1/a", 1, 0, e);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  auto second = store.claim_trial(ids, "otherhost/2/b", 60);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->id, first->id);
  EXPECT_EQ(second->attempts, 2);
  EXPECT_FALSE(store.heartbeat(first->id, "otherhost/1/a", 60));
  EXPECT_THROW(store.record_eval(first->id, "otherhost/1/a", 1, 0, e), LeaseLost);
  EXPECT_THROW(store.finish_trial(first->id, "otherhost/1/a", TrialOutcome{}), LeaseLost);
  EXPECT_TRUE(store.heartbeat(second->id, "otherhost/2/b", 60));
  // The first attempt's eval stays in the store, under its attempt number.
  EXPECT_EQ(store.evals(first->id, 1).size(), 1u);
  EXPECT_TRUE(store.evals(first->id, 2).empty());
}

TEST_P(StudyStoreTest, TrialOfADeadLocalProcessIsReclaimedWithoutWaitingForTheLease) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  // An owner id naming a process of this host that has exited.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  std::string owner = StudyStore::make_owner_id();
  const auto first_slash = owner.find('/');
  const std::string dead_owner = owner.substr(0, first_slash) + "/" + std::to_string(child) + "/dead";
  ASSERT_TRUE(store.claim_trial(ids, dead_owner, 3600));
  // A live owner on this host keeps its trial.
  auto none = store.claim_trial(ids, owner, 60);
  ASSERT_TRUE(none);  // the dead owner's trial is taken over at once
  EXPECT_EQ(none->attempts, 2);
  EXPECT_FALSE(store.claim_trial(ids, "x/1/y", 60)) << "a live owner's lease must hold";
}

TEST_P(StudyStoreTest, ADeadPidOfAnotherProcessTableIsJudgedByItsLease) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  // Same host name, same (now unused) pid, but another boot or pid namespace (a container):
  // that process may well be alive, so the trial waits for its lease.
  const std::string me = StudyStore::make_owner_id();
  const std::string other_table = me.substr(0, me.find('/')) + "/" + std::to_string(child) + "/n/00000000-1";
  ASSERT_TRUE(store.claim_trial({studies[0].id}, other_table, 3600));
  EXPECT_FALSE(store.claim_trial({studies[0].id}, me, 60));
}

TEST_P(StudyStoreTest, ReleasedTrialIsInterruptedAndRunnableAgain) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  auto t = store.claim_trial(ids, "me/1/a", 60);
  store.release_trial(t->id, "me/1/a", "interrupted");
  EXPECT_EQ(store.trials(studies[0].id)[0].status, StoredTrialStatus::interrupted);
  EXPECT_EQ(store.trials(studies[0].id)[0].interruption, "interrupted");
  EXPECT_FALSE(store.trials(studies[0].id)[0].result);
  EXPECT_FALSE(store.progress(ids).finished());
  auto again = store.claim_trial(ids, "me/1/b", 60);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->attempts, 2);
  // Ended, the outcome's message replaces the interruption's.
  TrialOutcome o;
  o.status = TrialStatus::failed;
  o.message = "out of memory";
  store.finish_trial(again->id, "me/1/b", o);
  const TrialRecord failed = store.trials(studies[0].id)[0];
  EXPECT_EQ(failed.status, StoredTrialStatus::failed);
  ASSERT_TRUE(failed.result);
  EXPECT_EQ(failed.result->message, "out of memory");
  EXPECT_EQ(failed.interruption, "");
}

// An ended trial whose outcome is not one Pacer writes (a store edited by hand) is refused when
// read, naming the trial and the value, rather than read as some other outcome.
TEST_P(StudyStoreTest, AnEndedTrialWithAForeignOutcomeIsNamed) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::string me = StudyStore::make_owner_id();
  auto t = store.claim_trial({studies[0].id}, me, 60);
  ASSERT_TRUE(t.has_value());
  TrialOutcome o;
  o.status = TrialStatus::diverged;
  store.finish_trial(t->id, me, o);
  for (const std::string outcome : {"won", "reached"}) {  // unknown; known but not a divergence
    if (!edit_by_hand("UPDATE trials SET outcome = '" + outcome + "'")) GTEST_SKIP() << "sqlite3 shell not installed";
    try {
      store.trials(studies[0].id);
      ADD_FAILURE() << "a diverged trial with outcome '" << outcome << "' was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("trial " + std::to_string(t->id)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'" + outcome + "'"), std::string::npos) << e.what();
    }
  }
}

class SqliteStudyStoreTest : public StoreFixture {};

TEST_F(SqliteStudyStoreTest, RejectsFilesThatAreNotStores) {
  {
    std::ofstream(dir_ + "/junk.db") << "this is not a database, just text that is long enough to have a header";
  }
  try {
    StudyStore store(dir_ + "/junk.db");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("junk.db"), std::string::npos) << e.what();
  }
  StudyStoreOptions no_create;
  no_create.create = false;
  EXPECT_THROW(StudyStore(dir_ + "/missing.db", no_create), InputError);
}

// Workers started together all create the store: switching a new file to WAL takes a lock
// without SQLite's busy handler, and once made one of two `pacer tune` workers exit at start.
TEST_F(SqliteStudyStoreTest, ProcessesCreatingOneStoreAtOnceAllSucceed) {
  constexpr int kRounds = 25, kProcesses = 4;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir_ + "/race" + std::to_string(round) + ".db";
    int gate[2];
    ASSERT_EQ(pipe(gate), 0);
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
      const pid_t child = fork();
      if (child == 0) {
        close(gate[1]);
        char c;
        (void)!read(gate[0], &c, 1);  // released together when the parent closes the pipe
        try {
          StudyStore store(path);
          store.ensure_studies({definition(1, 2)}, factory());
          _exit(0);
        } catch (const std::exception& e) {
          fprintf(stderr, "process %d of round %d: %s\n", p, round, e.what());
          _exit(1);
        }
      }
      ASSERT_GT(child, 0);
      children.push_back(child);
    }
    close(gate[0]);
    close(gate[1]);
    for (pid_t child : children) {
      int status = 0;
      ASSERT_EQ(waitpid(child, &status, 0), child);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << round;
    }
    StudyStore store(path);
    EXPECT_EQ(store.studies().size(), 1u);
    if (HasFailure()) return;
  }
}

TEST_P(StudyStoreTest, RefusesAStoreFromANewerSchema) {
  { StudyStore store(path_); }
  if (GetParam() == "postgresql") {
    const size_t name = path_.find("@/") + 2;  // postgresql://user@/NAME?host=...
    const std::string database = path_.substr(name, path_.find('?') - name);
    ASSERT_TRUE(testing::PostgresServer::get().sql(database, "UPDATE pacer_schema SET version = 99"));
  } else {
    // Simulate a future version by bumping user_version through a second store handle's SQL.
    std::string command = "sqlite3 '" + path_ + "' 'PRAGMA user_version = 99' 2>/dev/null";
    if (std::system(command.c_str()) != 0) GTEST_SKIP() << "sqlite3 shell not installed";
  }
  try {
    StudyStore store(path_);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

// Round 5, item 13: a store at the latest version without its studies table was "already, nothing
// to upgrade"; now opening it (to upgrade, read or write) names the missing table.
TEST_P(StudyStoreTest, AStoreWithoutItsStudiesTableIsRefusedNamingIt) {
  { StudyStore store(path_); }
  // PostgreSQL: the trials' foreign key depends on it.
  if (!edit_by_hand(GetParam() == "postgresql" ? "DROP TABLE studies CASCADE" : "DROP TABLE studies")) {
    GTEST_SKIP() << "sqlite3 shell not installed";
  }
  for (bool read_only : {false, true}) {
    try {
      StudyStoreOptions options;
      options.read_only = read_only;
      StudyStore store(path_, options);
      FAIL() << "expected an InputError (read_only " << read_only << ")";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("a damaged pacer study store: its table 'studies' is missing"),
                std::string::npos)
          << e.what();
    }
  }
}

// Round 5, item 13: a study whose trial settings are not JSON was read as a wall-clock study.
TEST_P(StudyStoreTest, StudySettingsThatAreNotJsonAreNamedNotReadAsTheWallClock) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  if (!edit_by_hand("UPDATE studies SET trial_spec = 'not json'")) GTEST_SKIP() << "sqlite3 shell not installed";
  try {
    StoreSource({path_}).trials();
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("its stored trial settings are not a JSON object"), std::string::npos)
        << e.what();
  }
}

// An eval row whose metrics are not a JSON object (a store edited or damaged by hand): reading it
// is an InputError naming the row, and scoring counts that trial as not reaching, with the reason.
TEST_P(StudyStoreTest, ADamagedEvalRowIsNamedAndScoringCountsItsTrialAsMissing) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::string me = StudyStore::make_owner_id();
  auto t = store.claim_trial({studies[0].id}, me, 60);
  ASSERT_TRUE(t.has_value());
  EvalRecord e;
  e.metrics = {{"validation/loss", 0.5}};
  for (int64_t i = 0; i < 2; ++i) {
    e.step = 10 * (i + 1);
    store.record_eval(t->id, me, t->attempts, i, e);
  }
  TrialOutcome o;
  o.status = TrialStatus::not_reached;
  store.finish_trial(t->id, me, o);
  if (!edit_by_hand("UPDATE evals SET metrics = '[1, 2]' WHERE eval_index = 1")) GTEST_SKIP() << "sqlite3 shell not installed";
  try {
    store.evals(t->id);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("trial " + std::to_string(t->id) +
                                             " attempt 1 eval 1: the metrics are not a JSON object"),
              std::string::npos)
        << error.what();
  }
  const auto logs = StoreSource({path_}).trials();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_NE(logs[0].problem.find("eval 1: the metrics are not a JSON object"), std::string::npos) << logs[0].problem;
}

// Worker threads, each on its own connection (as separate processes have), claiming trials of
// one study and running `trial` on each until none is left or `limit` trials each. Returns the
// trial ids each worker claimed; a worker's exception is a test failure.
using TrialBody = std::function<void(StudyStore&, const TrialRecord&, const std::string& owner)>;
std::vector<std::vector<int64_t>> run_workers(const std::string& location, int64_t study_id, int workers, int limit,
                                              const TrialBody& trial) {
  std::vector<std::vector<int64_t>> claimed(workers);
  std::vector<std::string> errors(workers);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        StudyStore store(location);
        const std::string owner = "test/" + std::to_string(w) + "/x";
        for (int i = 0; i < limit; ++i) {
          auto t = store.claim_trial({study_id}, owner, 600);
          if (!t) break;
          claimed[w].push_back(t->id);
          trial(store, *t, owner);
        }
      } catch (const std::exception& e) {
        errors[w] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  return claimed;
}

// How many claims there were; fails when two claims took one trial.
size_t expect_claimed_once(const std::vector<std::vector<int64_t>>& claimed) {
  std::set<int64_t> all;
  size_t total = 0;
  for (const auto& c : claimed) {
    total += c.size();
    all.insert(c.begin(), c.end());
  }
  EXPECT_EQ(all.size(), total) << "a trial was claimed twice";
  return total;
}

TEST_P(StudyStoreTest, EightWorkersMakingTwoHundredClaimsEachNeverShareATrial) {
  constexpr int kWorkers = 8, kClaims = 200;
  const int64_t study =
      StudyStore(path_).ensure_studies({definition(1, kWorkers * kClaims)}, factory())[0].id;
  const auto claimed = run_workers(path_, study, kWorkers, kClaims,
                                   [](StudyStore& store, const TrialRecord& t, const std::string& owner) {
                                     TrialOutcome o;
                                     o.status = TrialStatus::not_reached;
                                     store.finish_trial(t.id, owner, o);
                                   });
  EXPECT_EQ(expect_claimed_once(claimed), size_t{kWorkers * kClaims});
  StudyStore store(path_);
  EXPECT_TRUE(store.progress({study}).finished());
  for (const auto& t : store.trials(study)) ASSERT_EQ(t.attempts, 1) << "trial " << t.index;
}

TEST_P(StudyStoreTest, AWorkerKilledMidTrialLosesItAndItsEvalsStay) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t worker = fork();
  if (worker == 0) {
    // A worker process of its own connection: claims, records one eval, then trains "forever".
    try {
      StudyStore own(path_);
      const std::string owner = StudyStore::make_owner_id();
      auto t = own.claim_trial(ids, owner, 3600);
      EvalRecord e;
      e.step = 7;
      e.metrics = {{"validation/loss", 1.5}};
      own.record_eval(t->id, owner, t->attempts, 0, e);
      (void)!write(ready[1], "x", 1);
    } catch (...) {
      _exit(3);
    }
    for (;;) pause();
  }
  ASSERT_GT(worker, 0);
  close(ready[1]);  // a worker that fails closes the last write end: read() returns 0
  char byte = 0;
  const auto got = read(ready[0], &byte, 1);
  close(ready[0]);
  if (got != 1) kill(worker, SIGKILL);
  ASSERT_EQ(got, 1) << "the worker did not claim";
  auto running = store.trials(studies[0].id)[0];
  EXPECT_EQ(running.status, StoredTrialStatus::running);
  EXPECT_FALSE(store.claim_trial(ids, "x/1/y", 60)) << "a live worker's trial must not be taken";
  kill(worker, SIGKILL);
  waitpid(worker, nullptr, 0);
  // Its lease has an hour left; the owner on this host is gone, so the trial is re-run at once.
  auto again = store.claim_trial(ids, StudyStore::make_owner_id(), 60);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, running.id);
  EXPECT_EQ(again->attempts, 2);
  const auto kept = store.evals(running.id, 1);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].step, 7);
  EXPECT_TRUE(store.evals(running.id, 2).empty());
}

// Everything of a study, as comparable text without the store's own ids.
std::string describe(const StudySnapshot& s) {
  std::ostringstream out;
  out.precision(17);
  const auto& r = s.study;
  out << r.identity << "|" << r.sweep << "|" << r.experiment << "|" << r.workload << "|" << r.algorithm << "|"
      << r.ruleset << "|" << r.study_index << "|" << r.space_json << "|" << r.sampler << "|" << r.sampler_seed << "|"
      << r.trial_spec << "|" << r.planned_trials << "|" << r.created_at << "|next " << s.sweep_next_position << "\n";
  auto opt = [&](const auto& v) {
    if (v) out << *v;
    else out << "null";
    out << "|";
  };
  for (size_t i = 0; i < s.trials.size(); ++i) {
    const auto& t = s.trials[i];
    out << t.index << "|";
    opt(t.position);
    opt(t.hparams_json);
    out << t.seed << "|" << to_string(t.status) << "|" << t.attempts << "|" << t.lease_owner << "|";
    for (const auto& v : {t.lease_expires, t.heartbeat_at, t.started_at, t.finished_at}) opt(v);
    if (const auto& r = t.result) {
      out << to_string(r->status) << "|" << to_string(r->stop_reason) << "|" << r->message << "|" << r->steps << "|"
          << r->submission_time << "|" << r->eval_time << "|" << r->total_duration << "|";
      for (const auto& v : {r->time_to_target, r->best_validation}) opt(v);
      for (const auto& v : {r->steps_to_target, r->eval_index_to_target}) opt(v);
    } else {
      out << "not ended|" << t.interruption << "|";
    }
    out << "\n";
    for (const auto& [attempt, e] : s.evals[i]) {
      out << "  " << attempt << "|" << e.step << "|" << e.accumulated_submission_time << "|" << e.accumulated_eval_time
          << "|" << e.accumulated_logging_time << "|" << e.total_duration << "|" << e.preemption_count << "|"
          << metrics_to_json(e.metrics) << "\n";
    }
  }
  return out.str();
}

// A study with every kind of trial: finished with evals over two attempts, diverged, running
// under a lease, interrupted, pending; 64-bit seeds, infinite and tiny values.
std::vector<StudySnapshot> varied_studies(StudyStore& store) {
  auto factory_with_big_seeds = [](const StudyRecord&, int64_t first_index, int64_t count, int64_t first_position) {
    std::vector<NewTrial> out;
    for (int64_t i = 0; i < count; ++i) {
      NewTrial t;
      t.position = first_position + i;
      if (i != 1) t.hparams_json = "{\"learning_rate\":0.001" + std::to_string(i) + "}";
      t.seed = 18446744073709551557ull - static_cast<uint64_t>(first_index + i);
      out.push_back(t);
    }
    return out;
  };
  StudyDefinition d;
  d.identity = "copy#1";
  d.sweep = "copy";
  d.experiment = "nadamw";
  d.workload = "fmnist_mlp";
  d.algorithm = "nadamw";
  d.ruleset = "external";
  d.space_json = "{\"learning_rate\":{\"min\":1e-4,\"max\":1e-2,\"scale\":\"log\"}}";
  d.sampler = "halton";
  d.sampler_seed = 9223372036854775807ull + 11;
  d.trial_spec = "{\"budget\":10}";
  d.trials = 5;
  auto studies = store.ensure_studies({d}, factory_with_big_seeds);
  const std::vector<int64_t> ids = {studies[0].id};
  const std::string owner = "otherhost/1/a";
  // Trial 1: attempt 1 lost its lease after one eval; attempt 2 reached the target.
  auto t1 = store.claim_trial(ids, owner, 0.01);
  EvalRecord e;
  e.step = 100;
  e.accumulated_submission_time = 1.0 / 3.0;
  e.accumulated_eval_time = 1e-300;
  e.preemption_count = 1;
  e.metrics = {{"validation/accuracy", 0.5}, {"validation/loss", NAN}};
  store.record_eval(t1->id, owner, 1, 0, e);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  t1 = store.claim_trial(ids, owner, 60);
  for (int i = 0; i < 3; ++i) {
    e.step = 100 * (i + 1);
    e.accumulated_submission_time = 0.1 * (i + 1);
    e.total_duration = 12345.678901234567;
    store.record_eval(t1->id, owner, 2, i, e);
  }
  TrialOutcome reached;
  reached.status = TrialStatus::reached;
  reached.stop_reason = StopReason::targets_reached;
  reached.steps = 300;
  reached.submission_time = 0.3;
  reached.time_to_target = 0.25;
  reached.steps_to_target = 250;
  reached.eval_index_to_target = 2;
  reached.best_validation = 0.8957000000000001;
  store.finish_trial(t1->id, owner, reached);
  // Trial 2 (self-tuning-like: no hyperparameters) diverged; trial 3 is running; 4 interrupted.
  auto t2 = store.claim_trial(ids, owner, 60);
  TrialOutcome diverged;
  diverged.status = TrialStatus::diverged;
  diverged.message = "loss is nan at step 12";
  diverged.time_to_target = std::numeric_limits<double>::infinity();
  store.finish_trial(t2->id, owner, diverged);
  auto t3 = store.claim_trial(ids, owner, 3600);
  auto t4 = store.claim_trial(ids, owner, 60);
  store.release_trial(t4->id, owner, "interrupted (Ctrl-C)");
  (void)t3;
  return {store.snapshot(studies[0].id)};
}

class StudySelectionTest : public StoreFixture {};

// `pacer study show|export|delete|copy STUDY`: an id, a full name, or a prefix ending at a '/'.
TEST_F(StudySelectionTest, ByIdFullNameOrAPrefixAtASlashAndCopiedWithEveryTrial) {
  StudyStore store(path_);
  StudyDefinition other = definition(1, 2, "sweep-b");
  other.experiment = "expert";  // "exp" is a prefix of its name, but not at a '/'
  const auto studies = store.ensure_studies({definition(1, 3), definition(2, 3), other}, factory());
  const auto all = store.studies();
  auto names = [](const std::vector<StudyRecord>& chosen) {
    std::vector<std::string> out;
    for (const auto& s : chosen) out.push_back(s.name());
    return out;
  };
  EXPECT_EQ(select_studies(all, "").size(), 3u);
  EXPECT_EQ(names(select_studies(all, std::to_string(studies[1].id))), std::vector<std::string>{studies[1].name()});
  EXPECT_EQ(names(select_studies(all, "exp/synthetic_regression/study_2")),
            std::vector<std::string>{"exp/synthetic_regression/study_2"});
  EXPECT_EQ(select_studies(all, "exp").size(), 2u);
  EXPECT_EQ(select_studies(all, "exp/synthetic_regression").size(), 2u);
  EXPECT_EQ(select_studies(all, "expert").size(), 1u);
  // A selector the command line gave, but blank (an unset shell variable), selects nothing: it is
  // refused, where leaving it out means every study.
  EXPECT_EQ(select_studies(all, "", /*given=*/false).size(), 3u);
  for (const std::string blank : {"", " ", "\t"}) {
    EXPECT_NE(testing::input_error_of([&] { select_studies(all, blank, /*given=*/true); })
                  .find("the study selector is empty"),
              std::string::npos);
  }
  try {
    select_studies(all, "ex");
    ADD_FAILURE() << "a prefix that ends inside a name selected something";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no study matches 'ex' (studies: exp/synthetic_regression/study_1"),
              std::string::npos)
        << e.what();
  }
  const StudyCopy copied = copy_studies(store, select_studies(all, "exp"), dir_ + "/copy/to.db");
  EXPECT_EQ(copied.studies, 2u);
  EXPECT_EQ(copied.trials, 6u);
  EXPECT_EQ(copied.evals, 0u);
  StudyStore to(dir_ + "/copy/to.db");
  EXPECT_EQ(names(to.studies()), names(select_studies(all, "exp")));
  // Copying them again is refused as a whole: nothing is added.
  EXPECT_THROW(copy_studies(store, all, dir_ + "/copy/to.db"), InputError);
  EXPECT_EQ(to.studies().size(), 2u);
}

class StudyCopyTest : public StoreFixture {};

TEST_F(StudyCopyTest, AStudyCopiedSqliteToPostgresqlToSqliteIsUnchanged) {
  const std::string postgres = postgres_database();
  if (postgres.empty()) GTEST_SKIP() << testing::PostgresServer::get().reason();
  StudyStore source(path_);
  const auto original = varied_studies(source);
  StudyStore middle(postgres);
  middle.import_studies(original);
  const auto on_server = middle.snapshot(middle.studies().at(0).id);
  EXPECT_EQ(describe(on_server), describe(original[0]));
  StudyStore back(dir_ + "/back.db");
  back.import_studies({on_server});
  const auto returned = back.snapshot(back.studies().at(0).id);
  EXPECT_EQ(describe(returned), describe(original[0]));
  // Copying it again is refused, and nothing is added.
  EXPECT_THROW(back.import_studies({on_server}), InputError);
  EXPECT_EQ(back.studies().size(), 1u);
  // The copy goes on where the original would: the running trial's lease, the next position.
  const auto copy_ids = std::vector<int64_t>{back.studies()[0].id};
  auto next = back.claim_trial(copy_ids, "me/1/z", 60);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->index, 4);  // the interrupted one; 3 is leased for an hour
  EXPECT_EQ(next->attempts, 2);
}

// The PostgreSQL-only behaviour: a fresh database on the test's server.
class PostgresStudyStore : public StoreFixture {
 protected:
  void SetUp() override {
    StoreFixture::SetUp();
    uri_ = postgres_database();
    if (uri_.empty()) GTEST_SKIP() << testing::PostgresServer::get().reason();
  }
  std::string uri_;
};

TEST_F(PostgresStudyStore, SurvivesTheServerRestartingMidStudy) {
  auto& server = testing::PostgresServer::get();
  const std::string& uri = uri_;
  constexpr int kWorkers = 4, kTrials = 120;
  const auto study = StudyStore(uri).ensure_studies({definition(1, kTrials, "restart")}, factory())[0];
  std::atomic<int> done{0};
  std::vector<std::vector<int64_t>> claimed;
  std::thread study_run([&] {
    claimed = run_workers(uri, study.id, kWorkers, kTrials,
                          [&](StudyStore& store, const TrialRecord& t, const std::string& owner) {
                            EvalRecord e;
                            store.record_eval(t.id, owner, t.attempts, 0, e);
                            std::this_thread::sleep_for(std::chrono::milliseconds(25));  // "training"
                            TrialOutcome o;
                            o.status = TrialStatus::not_reached;
                            o.steps = t.index;
                            store.finish_trial(t.id, owner, o);
                            ++done;
                          });
  });
  for (int waited = 0; done < kTrials / 4 && waited < 6000; ++waited) {  // at most 30 s
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const int before = done;
  EXPECT_TRUE(server.restart());
  study_run.join();
  EXPECT_LT(before, kTrials) << "the restart came after the study";
  expect_claimed_once(claimed);
  StudyStore store(uri);
  const auto trials = store.trials(study.id);
  ASSERT_EQ(trials.size(), size_t{kTrials});
  for (const auto& t : trials) {
    EXPECT_EQ(t.status, StoredTrialStatus::complete) << "trial " << t.index;
    EXPECT_EQ(t.attempts, 1) << "trial " << t.index << " ran twice";
    EXPECT_EQ(store.evals(t.id).size(), 1u) << "trial " << t.index;
  }
}

// A commit that lands on the server while its reply is lost (the connection breaks in between):
// the retried transaction recognizes what the first one did instead of doing it again.
TEST_F(PostgresStudyStore, ACommitWhoseReplyIsLostIsRecognizedNotRepeated) {
  auto& server = testing::PostgresServer::get();
  StudyStore store(uri_);
  lose_next_commit_replies_for_testing(1);
  const auto studies = store.ensure_studies({definition(1, 2, "lost")}, factory());
  ASSERT_EQ(store.studies().size(), 1u);
  ASSERT_EQ(store.trials(studies[0].id).size(), 2u) << "planning twice";
  const std::vector<int64_t> ids = {studies[0].id};
  const std::string owner = "otherhost/1/a";

  lose_next_commit_replies_for_testing(1);
  auto claimed = store.claim_trial(ids, owner, 60);
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->index, 1);
  EXPECT_EQ(claimed->attempts, 1);
  EXPECT_EQ(store.progress(ids).running, 1) << "the retry claimed a second trial";

  EvalRecord e;
  lose_next_commit_replies_for_testing(1);
  store.record_eval(claimed->id, owner, 1, 0, e);
  EXPECT_EQ(store.evals(claimed->id).size(), 1u);

  TrialOutcome o;
  o.status = TrialStatus::reached;
  o.steps = 5;
  lose_next_commit_replies_for_testing(1);
  EXPECT_NO_THROW(store.finish_trial(claimed->id, owner, o));
  EXPECT_EQ(store.trials(studies[0].id)[0].status, StoredTrialStatus::complete);

  // A copy whose commit landed: recognized, not refused as "already holds".
  StudyStore copy(server.create_database());
  lose_next_commit_replies_for_testing(1);
  EXPECT_EQ(copy.import_studies({store.snapshot(studies[0].id)}).size(), 1u);
  EXPECT_EQ(copy.studies().size(), 1u);

  lose_next_commit_replies_for_testing(1);
  EXPECT_EQ(store.delete_studies(ids, /*even_running=*/true), 2) << "the retry must report what the commit removed";
  EXPECT_TRUE(store.studies().empty());
  lose_next_commit_replies_for_testing(0);
}

// What a damaged or hand-edited SQLite store may hold in an integer column (found by the
// store_rows fuzzer: 1e308 used to be cast to int64, undefined behaviour).
// Round 5, item 16: a command that only reads a store of an older schema reads a migrated private
// copy; the copy is kept in the user's cache (store/migrated_store_cache.h), so the next read of
// the unchanged store opens it instead of copying and migrating again, and a changed store gets a
// fresh copy (the stale one removed). The store itself stays byte for byte as it was.
TEST(MigratedStoreCache, AnOlderStoreIsMigratedOnceAndItsKeptCopyFollowsTheStore) {
  namespace fs = std::filesystem;
  std::string folder = (fs::path(::testing::TempDir()) / "pacer_migrated_XXXXXX").string();
  ASSERT_NE(::mkdtemp(folder.data()), nullptr);
  const std::string old = folder + "/old.db", cache = folder + "/cache";
  fs::copy_file(std::string(PACER_SOURCE_DIR) + "/tests/data/store_before_trial_spec.db", old);
  const auto bytes = [](const std::string& file) {
    std::ostringstream text;
    text << std::ifstream(file, std::ios::binary).rdbuf();
    return text.str();
  };
  const std::string before = bytes(old);
  ::setenv("PACER_CACHE_DIR", cache.c_str(), 1);
  StudyStoreOptions read_only;
  read_only.read_only = true;
  const auto first_algorithm = [&] {
    StudyStore store(old, read_only);
    EXPECT_EQ(store.opened_schema_version(), 1);
    return store.studies().at(0).algorithm;
  };
  const auto kept = [&] {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(cache)) files.push_back(entry.path().string());
    return files;
  };
  EXPECT_EQ(first_algorithm(), "nadamw");
  ASSERT_EQ(kept().size(), 1u);
  // The kept copy is what the next read opens: an edit made to it (by hand, here) shows.
  const std::string copy = kept().at(0);
  if (std::system(("sqlite3 '" + copy + "' \"UPDATE studies SET algorithm = 'edited' WHERE id = 1\"").c_str()) != 0) {
    ::unsetenv("PACER_CACHE_DIR");
    GTEST_SKIP() << "sqlite3 shell not installed";
  }
  EXPECT_EQ(first_algorithm(), "edited");
  // A store changed since (here only its time) is another store: copied and migrated afresh.
  fs::last_write_time(old, fs::last_write_time(old) + std::chrono::seconds(5));
  EXPECT_EQ(first_algorithm(), "nadamw");
  ASSERT_EQ(kept().size(), 1u);
  EXPECT_NE(kept().at(0), copy);
  EXPECT_EQ(bytes(old), before);
  // Without a cache folder the copy stays in memory, as before.
  ::setenv("PACER_CACHE_DIR", (folder + "/old.db/not-a-folder").c_str(), 1);
  EXPECT_EQ(first_algorithm(), "nadamw");
  ::unsetenv("PACER_CACHE_DIR");
  EXPECT_EQ(bytes(old), before);
  fs::remove_all(folder);
}

TEST(SqlRowReads, NumbersThatAreNoIntegersAreErrorsNotCasts) {
  SqlRow row{{SqlValue(-1.79769e308), SqlValue(2.5), SqlValue(42.0), SqlValue(std::string("12x")),
              SqlValue(std::string("Infinity")), SqlValue(std::string("-7"))}};
  EXPECT_THROW(row.int64(0), Error);
  EXPECT_THROW(row.int64(1), Error);
  EXPECT_EQ(row.int64(2), 42);
  EXPECT_THROW(row.int64(3), Error);
  EXPECT_TRUE(std::isinf(row.real(4)));  // PostgreSQL's spelling
  EXPECT_EQ(row.int64(5), -7);
}

TEST(StoreLocation, PasswordsNeverReachMessages) {
  EXPECT_EQ(printable_store_location("postgresql://pacer:s3cret@db.example:5433/studies"),
            "postgresql://pacer@db.example:5433/studies");
  EXPECT_EQ(printable_store_location("postgresql://db/studies?user=pacer&password=s3cret&sslmode=require"),
            "postgresql://db/studies?user=pacer&sslmode=require");
  EXPECT_EQ(printable_store_location("postgres://db/studies?password=s3cret"), "postgres://db/studies");
  EXPECT_EQ(printable_store_location("runs/tune.db"), "runs/tune.db");
  EXPECT_EQ(store_uri_password("postgresql://pacer:s3cret@db/studies"), "s3cret");
  EXPECT_EQ(store_uri_password("postgresql://db/studies?user=pacer&password=s3cret&sslmode=require"), "s3cret");
  EXPECT_EQ(store_uri_password("postgresql://pacer@db:5433/studies"), "");
  try {
    StudyStoreOptions quick;
    quick.reconnect_timeout_sec = 1;
    StudyStore store("postgresql://pacer:s3cret@/nodb?host=/nonexistent-socket-dir&connect_timeout=2", quick);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot connect"), std::string::npos) << message;
  }
  try {
    StudyStore store("mysql://root:hunter2@db/studies");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos) << e.what();
  }
  // A secret with a '/' (left unencoded) still goes.
  EXPECT_EQ(printable_store_location("postgresql://pacer:a/b@db/studies"), "postgresql://pacer@db/studies");
}

}  // namespace
}  // namespace pacer

// The AlgoPerf rule on stored results: per study the trial with the earliest eval index that
// reaches the target (ties: smaller time), per sweep the median over studies with inf included.
namespace pacer {
namespace {

TEST_P(StudyStoreTest, SummaryPicksEarliestEvalIndexThenSmallerTimeAndTakesTheMedian) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 3), definition(2, 2), definition(3, 2)}, factory());
  auto finish = [&](int64_t study_id, std::optional<int64_t> eval_index, double time) {
    auto t = store.claim_trial({study_id}, "o/1/x", 60);
    TrialOutcome o;
    o.status = eval_index ? TrialStatus::reached : TrialStatus::not_reached;
    if (eval_index) {
      o.eval_index_to_target = *eval_index;
      o.time_to_target = time;
      o.steps_to_target = *eval_index * 100;
    }
    store.finish_trial(t->id, "o/1/x", o);
  };
  // Study 1: trial 1 reaches at eval 5 in 4.0 s; trial 2 at eval 3 in 6.0 s; trial 3 at eval 3 in 5.0 s.
  // Smallest eval index wins over smallest time: 3 beats 5; the tie at 3 goes to 5.0 s (trial 3).
  finish(studies[0].id, 5, 4.0);
  finish(studies[0].id, 3, 6.0);
  finish(studies[0].id, 3, 5.0);
  // Study 2: 7.0 s. Study 3: nothing reached (inf). Median of {5, 7, inf} = 7.
  finish(studies[1].id, 4, 7.0);
  finish(studies[1].id, std::nullopt, 0.0);
  finish(studies[2].id, std::nullopt, 0.0);
  finish(studies[2].id, std::nullopt, 0.0);

  auto sweeps = summarize_studies(store, store.studies());
  ASSERT_EQ(sweeps.size(), 1u);
  const auto& sweep = sweeps[0];
  ASSERT_EQ(sweep.studies.size(), 3u);
  EXPECT_EQ(sweep.studies[0].best_trial, 3);
  EXPECT_DOUBLE_EQ(sweep.studies[0].time_to_target, 5.0);
  EXPECT_EQ(sweep.studies[1].best_trial, 1);
  EXPECT_FALSE(sweep.studies[2].best_trial.has_value());
  EXPECT_TRUE(std::isinf(sweep.studies[2].time_to_target));
  EXPECT_DOUBLE_EQ(sweep.median_time, 7.0);
  EXPECT_TRUE(sweep.finished());
  const std::string text = format_study_details(sweep);
  EXPECT_NE(text.find("best trial 3"), std::string::npos) << text;
  EXPECT_NE(text.find("7.000 s"), std::string::npos) << text;
}

TEST_P(StudyStoreTest, MedianWithTwoInfiniteStudiesOfThreeIsInfinite) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1), definition(2, 1), definition(3, 1)}, factory());
  for (size_t i = 0; i < 3; ++i) {
    auto t = store.claim_trial({studies[i].id}, "o/1/x", 60);
    TrialOutcome o;
    o.status = i == 0 ? TrialStatus::reached : TrialStatus::not_reached;
    if (i == 0) {
      o.eval_index_to_target = 1;
      o.time_to_target = 2.0;
    }
    store.finish_trial(t->id, "o/1/x", o);
  }
  auto sweeps = summarize_studies(store, store.studies());
  EXPECT_TRUE(std::isinf(sweeps[0].median_time));
}

INSTANTIATE_TEST_SUITE_P(Backends, StudyStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace pacer
