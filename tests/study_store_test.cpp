// The study store: schema, idempotent planning, atomic claims under concurrency, leases
// (expiry, dead local owners), lease checks on every write, interrupted trials.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "core/error.h"
#include "store/study_store.h"
#include "tune/study_summary.h"

namespace pacer {
namespace {

class StudyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "pacer_store_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/tune.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

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
    d.trial_options = "{}";
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

TEST_F(StudyStoreTest, PlansStudiesOnceAndGrowsThemWithDistinctPositions) {
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

TEST_F(StudyStoreTest, ClaimRecordFinishAndProgress) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 2)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  const std::string me = StudyStore::make_owner_id();
  auto t1 = store.claim_trial(ids, me, 60);
  ASSERT_TRUE(t1.has_value());
  EXPECT_EQ(t1->index, 1);
  EXPECT_EQ(t1->status, StoredTrialStatus::running);
  EXPECT_EQ(t1->attempts, 1);
  StoredEval e;
  e.eval_index = 0;
  e.global_step = 10;
  e.submission_time = 0.5;
  e.metrics_json = "{\"validation/loss\":0.3}";
  store.record_eval(t1->id, me, t1->attempts, e);
  TrialOutcome o;
  o.outcome = "reached";
  o.steps = 10;
  o.time_to_target = 0.5;
  o.eval_index_to_target = 0;
  store.finish_trial(t1->id, me, o);
  EXPECT_EQ(store.progress(ids).done, 1);
  EXPECT_EQ(store.progress(ids).pending, 1);
  auto evals = store.evals(t1->id);
  ASSERT_EQ(evals.size(), 1u);
  EXPECT_EQ(evals[0].global_step, 10);
  EXPECT_EQ(evals[0].metrics_json, "{\"validation/loss\":0.3}");
  // Finished trials are never claimed again.
  auto t2 = store.claim_trial(ids, me, 60);
  ASSERT_TRUE(t2.has_value());
  EXPECT_EQ(t2->index, 2);
  EXPECT_FALSE(store.claim_trial(ids, me, 60).has_value());  // t2 is leased
}

TEST_F(StudyStoreTest, DeleteRemovesStudiesTrialsAndEvalsButNotARunningOne) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 2), definition(2, 2)}, factory());
  const std::string me = StudyStore::make_owner_id();
  auto t = store.claim_trial({studies[0].id}, me, 60);
  ASSERT_TRUE(t.has_value());
  StoredEval e;
  e.metrics_json = "{}";
  store.record_eval(t->id, me, t->attempts, e);
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

TEST_F(StudyStoreTest, ConcurrentClaimsNeverShareATrial) {
  {
    StudyStore store(path_);
    store.ensure_studies({definition(1, 40)}, factory());
  }
  std::vector<std::vector<int64_t>> claimed(4);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      StudyStore store(path_);  // one connection per worker, as separate processes have
      const auto ids = std::vector<int64_t>{store.studies()[0].id};
      const std::string owner = "test/" + std::to_string(w);
      while (auto t = store.claim_trial(ids, owner, 60)) {
        claimed[w].push_back(t->id);
        TrialOutcome o;
        o.outcome = "not_reached";
        store.finish_trial(t->id, owner, o);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int64_t> all;
  size_t total = 0;
  for (const auto& c : claimed) {
    total += c.size();
    all.insert(c.begin(), c.end());
  }
  EXPECT_EQ(total, 40u);
  EXPECT_EQ(all.size(), 40u);
}

TEST_F(StudyStoreTest, ExpiredLeaseIsReclaimedAndTheOldOwnerCannotWrite) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  auto first = store.claim_trial(ids, "otherhost/1/a", 0.05);
  ASSERT_TRUE(first);
  StoredEval e;
  e.metrics_json = "{}";
  store.record_eval(first->id, "otherhost/1/a", 1, e);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  auto second = store.claim_trial(ids, "otherhost/2/b", 60);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->id, first->id);
  EXPECT_EQ(second->attempts, 2);
  EXPECT_FALSE(store.heartbeat(first->id, "otherhost/1/a", 60));
  EXPECT_THROW(store.record_eval(first->id, "otherhost/1/a", 1, e), LeaseLost);
  EXPECT_THROW(store.finish_trial(first->id, "otherhost/1/a", TrialOutcome{}), LeaseLost);
  EXPECT_TRUE(store.heartbeat(second->id, "otherhost/2/b", 60));
  // The first attempt's eval stays in the store, under its attempt number.
  EXPECT_EQ(store.evals(first->id, 1).size(), 1u);
  EXPECT_TRUE(store.evals(first->id, 2).empty());
}

TEST_F(StudyStoreTest, TrialOfADeadLocalProcessIsReclaimedWithoutWaitingForTheLease) {
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

TEST_F(StudyStoreTest, ReleasedTrialIsInterruptedAndRunnableAgain) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1)}, factory());
  const std::vector<int64_t> ids = {studies[0].id};
  auto t = store.claim_trial(ids, "me/1/a", 60);
  store.release_trial(t->id, "me/1/a", "interrupted");
  EXPECT_EQ(store.trials(studies[0].id)[0].status, StoredTrialStatus::interrupted);
  EXPECT_FALSE(store.progress(ids).finished());
  auto again = store.claim_trial(ids, "me/1/b", 60);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->attempts, 2);
}

TEST_F(StudyStoreTest, RejectsFilesThatAreNotStores) {
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

TEST_F(StudyStoreTest, RefusesAStoreFromANewerSchema) {
  { StudyStore store(path_); }
  {
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

}  // namespace
}  // namespace pacer

// The AlgoPerf rule on stored results: per study the trial with the earliest eval index that
// reaches the target (ties: smaller time), per sweep the median over studies with inf included.
namespace pacer {
namespace {

TEST_F(StudyStoreTest, SummaryPicksEarliestEvalIndexThenSmallerTimeAndTakesTheMedian) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 3), definition(2, 2), definition(3, 2)}, factory());
  auto finish = [&](int64_t study_id, std::optional<int64_t> eval_index, double time) {
    auto t = store.claim_trial({study_id}, "o/1/x", 60);
    TrialOutcome o;
    o.outcome = eval_index ? "reached" : "not_reached";
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

TEST_F(StudyStoreTest, MedianWithTwoInfiniteStudiesOfThreeIsInfinite) {
  StudyStore store(path_);
  auto studies = store.ensure_studies({definition(1, 1), definition(2, 1), definition(3, 1)}, factory());
  for (size_t i = 0; i < 3; ++i) {
    auto t = store.claim_trial({studies[i].id}, "o/1/x", 60);
    TrialOutcome o;
    o.outcome = i == 0 ? "reached" : "not_reached";
    if (i == 0) {
      o.eval_index_to_target = 1;
      o.time_to_target = 2.0;
    }
    store.finish_trial(t->id, "o/1/x", o);
  }
  auto sweeps = summarize_studies(store, store.studies());
  EXPECT_TRUE(std::isinf(sweeps[0].median_time));
}

}  // namespace
}  // namespace pacer
