// Tuning workers as threads of one process, on real trials of the synthetic workload: two workers
// sharing studies (leases, heartbeats, the store's concurrent writers), a stop request releasing
// the running trial and the same call finishing, the deadline watch, and a board's workers
// stopped by a deadline while its progress reporter reads the store. In process, these are what
// the ThreadSanitizer stage runs for the workers' threads (scripts/sanitize.sh); the commands'
// process-level behaviour (kill -9, Ctrl-C, --workers) stays in tune_cli_test.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/deadline_watch.h"
#include "core/error.h"
#include "runtime/global_generator_lease.h"
#include "store/study_store.h"
#include "run/board_worker.h"
#include "tune/board_progress_reporter.h"
#include "tune/board_request.h"
#include "tune/search_space.h"
#include "tune/sweep.h"
#include "run/trial_channel.h"
#include "run/tuning_worker.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

class TuningWorkerThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/tuning_worker_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    store_ = dir_ + "/tune.db";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // STUDIES x TRIALS trials of sgd, STEPS steps each with evals every EVERY steps, targets ignored.
  std::vector<StudyRecord> plan(int studies, int64_t trials, int64_t steps, int64_t every) const {
    return plan_in(store_, studies, trials, steps, every);
  }
  std::vector<StudyRecord> plan_in(const std::string& path, int studies, int64_t trials, int64_t steps,
                                   int64_t every) const {
    SweepSpec s;
    s.workload = "synthetic_regression";
    s.algorithm = s.experiment = "sgd";
    s.space = SearchSpace::from_json_text(R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"}})", "space");
    s.studies = studies;
    s.trials = trials;
    s.trial.device = "cpu";
    s.trial.max_steps = steps;
    s.trial.eval_every_steps = every;
    s.trial.stop_at_targets = false;
    s.trial.time_budget = 1000;  // the step limit ends every trial, however loaded the machine
    StudyStore store(path);
    return plan_sweeps(store, {s});
  }
  WorkerOptions options(const std::string& label) const {
    WorkerOptions o;
    o.lease_sec = 5.0;
    o.heartbeat_sec = 0.05;  // renewed many times per trial: the heartbeat thread runs throughout
    o.poll_sec = 0.05;
    o.label = label;
    return o;
  }
  std::vector<TrialRecord> trials(const std::string& path = "") const {
    StudyStore store(path.empty() ? store_ : path, StudyStoreOptions{false});
    std::vector<TrialRecord> out;
    for (const auto& study : store.studies())
      for (const auto& t : store.trials(study.id)) out.push_back(t);
    return out;
  }

  std::string dir_, store_;
};

TEST_F(TuningWorkerThreads, TwoWorkersInOneProcessShareTheStudiesAndRunEveryTrialOnce) {
  const auto studies = plan(2, 3, 600, 100);
  WorkerReport a, b;
  std::thread first([&] { a = run_tuning_worker(store_, studies, options("worker 1")); });
  std::thread second([&] { b = run_tuning_worker(store_, studies, options("worker 2")); });
  first.join();
  second.join();
  EXPECT_EQ(a.trials_run + b.trials_run, 6);
  EXPECT_GT(a.trials_run, 0);
  EXPECT_GT(b.trials_run, 0);
  EXPECT_EQ(a.leases_lost + b.leases_lost, 0);
  for (const auto& t : trials()) {
    EXPECT_EQ(t.status, StoredTrialStatus::complete) << "trial " << t.id;
    EXPECT_EQ(t.attempts, 1) << "trial " << t.id << " ran twice";
    ASSERT_TRUE(t.result) << "trial " << t.id;
    EXPECT_EQ(t.result->steps, 600);
  }
  EXPECT_EQ(a.evals_recorded + b.evals_recorded, 6 * 7);  // step 1, then every 100 steps
  // Each trial's numbers are those it gets alone: the workers' model initializations draw from
  // LibTorch's one global generator in turns (GlobalGeneratorLease), never interleaved.
  const std::string alone = dir_ + "/alone.db";
  run_tuning_worker(alone, plan_in(alone, 2, 3, 600, 100), options("alone"));
  const auto together = trials(), by_itself = trials(alone);
  ASSERT_EQ(together.size(), by_itself.size());
  StudyStore shared(store_, StudyStoreOptions{false}), single(alone, StudyStoreOptions{false});
  for (size_t i = 0; i < together.size(); ++i) {
    const auto x = shared.evals(together[i].id), y = single.evals(by_itself[i].id);
    ASSERT_EQ(x.size(), y.size()) << "trial " << i;
    for (size_t e = 0; e < x.size(); ++e)
      EXPECT_EQ(x[e].metrics.at("validation/loss"), y[e].metrics.at("validation/loss")) << "trial " << i << " eval " << e;
  }
}

TEST(GlobalGeneratorLease, ASecondThreadNeitherReseedsNorDrawsInsideAnotherThreadsLease) {
  std::vector<float> alone, first;
  {
    GlobalGeneratorLease draws(7);
    alone = {at::rand({1}).item<float>(), at::rand({1}).item<float>()};
  }
  std::atomic<bool> started{false}, seeded{false};
  std::thread other;
  {
    GlobalGeneratorLease draws(7);
    first.push_back(at::rand({1}).item<float>());
    other = std::thread([&] {
      started = true;
      GlobalGeneratorLease mine(8);
      seeded = true;
      at::rand({4});
    });
    while (!started) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time to reseed, were it not waiting
    EXPECT_FALSE(seeded);
    first.push_back(at::rand({1}).item<float>());
  }
  other.join();
  EXPECT_TRUE(seeded);
  EXPECT_EQ(first, alone);
}

TEST(GlobalGeneratorLease, ReseedingWithoutTheLeaseIsRefused) {
  EXPECT_THROW(reseed_global_generator(1), Error);
  GlobalGeneratorLease draws(1);
  EXPECT_NO_THROW(reseed_global_generator(2));
}

TEST_F(TuningWorkerThreads, AStopRequestReleasesTheRunningTrialAndTheSameCallFinishes) {
  const auto studies = plan(1, 2, 6000, 200);  // about 0.5 s: the stop lands inside the first trial
  std::atomic<bool> stop{false};
  WorkerOptions o = options("worker");
  o.stop_requested = &stop;
  WorkerReport report;
  std::thread worker([&] { report = run_tuning_worker(store_, studies, o); });
  // Stop once the first trial has recorded an eval past step 1.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    StudyStore store(store_, StudyStoreOptions{false});
    const auto t = store.trials(studies[0].id).at(0);
    if (t.status == StoredTrialStatus::running && store.evals(t.id, t.attempts).size() >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  worker.join();
  EXPECT_TRUE(report.interrupted);
  auto now = trials();
  EXPECT_EQ(now.at(0).status, StoredTrialStatus::interrupted);
  EXPECT_EQ(now.at(1).status, StoredTrialStatus::pending);

  stop = false;  // the same call again: both trials run to the end
  const auto resumed = plan(1, 2, 6000, 200);
  report = run_tuning_worker(store_, resumed, o);
  EXPECT_FALSE(report.interrupted);
  EXPECT_EQ(report.trials_run, 2);
  now = trials();
  EXPECT_EQ(now.at(0).status, StoredTrialStatus::complete);
  EXPECT_EQ(now.at(0).attempts, 2);
  EXPECT_EQ(now.at(1).status, StoredTrialStatus::complete);
}

// Leases that expire long before their heartbeat renews them: each worker takes over the other's
// trials and loses its own, for ever. A worker stops with an error after 3 in a row instead
// (a damaged store did this to the board: 341 lost leases in 50 minutes, no trial finished).
TEST_F(TuningWorkerThreads, AWorkerThatKeepsLosingItsLeasesStopsWithAnErrorInsteadOfLooping) {
  const auto studies = plan(1, 6, 3000, 500);
  WorkerOptions o = options("");
  o.lease_sec = 0.001;
  o.heartbeat_sec = 30.0;
  o.poll_sec = 0.02;
  std::string errors[2];
  auto worker = [&](int k) {
    WorkerOptions mine = o;
    mine.label = "worker " + std::to_string(k + 1);
    try {
      run_tuning_worker(store_, studies, mine);
    } catch (const Error& e) {
      errors[k] = e.what();
    }
  };
  // Without the limit the workers would loop for ever: after 60 s a stop request ends them, and
  // the test fails on the missing error instead of hanging.
  std::atomic<bool> give_up{false}, done{false};
  o.stop_requested = &give_up;
  const auto start = std::chrono::steady_clock::now();
  std::thread watchdog([&] {
    while (!done && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    give_up = true;
  });
  std::thread first(worker, 0), second(worker, 1);
  first.join();
  second.join();
  done = true;
  watchdog.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  const bool stopped = errors[0].find("lost the lease of 3 trials in a row") != std::string::npos ||
                       errors[1].find("lost the lease of 3 trials in a row") != std::string::npos;
  EXPECT_TRUE(stopped) << "worker 1: " << errors[0] << "\nworker 2: " << errors[1];
}

TEST(DeadlineWatch, StopsAtTheDeadlineOrOnAnInterruptAndSaysWhich) {
  std::atomic<bool> interrupted{false};
  const auto start = DeadlineWatch::Steady::now();
  {
    DeadlineWatch watch(interrupted, start + std::chrono::milliseconds(200));
    while (!watch.stop) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_GE(DeadlineWatch::Steady::now() - start, std::chrono::milliseconds(200));
    EXPECT_TRUE(watch.deadline_hit);
  }
  DeadlineWatch watch(interrupted, std::nullopt);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_FALSE(watch.stop);
  interrupted = true;
  while (!watch.stop) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(watch.deadline_hit);
}

// A board's two workers stopped by a deadline mid-board while the reporter reads the store, then
// the same board finished by the same calls: every trial exactly once, as `pacer board --max-hours`.
TEST_F(TuningWorkerThreads, ABoardStoppedByADeadlineFinishesOnTheNextRun) {
  fs::create_directories(dir_ + "/spaces");
  std::ofstream(dir_ + "/spaces/sgd.json") << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"}})";
  std::ofstream(dir_ + "/spaces/momentum.json") << R"({"learning_rate": {"min": 0.01, "max": 0.1, "scaling": "log"}})";
  BoardRequest request;
  request.algorithms = {"sgd", "momentum"};
  request.workloads = {"synthetic_regression"};
  request.spaces_dir = dir_ + "/spaces";
  request.studies = 1;
  request.trials = 2;
  request.trial.device = "cpu";
  request.trial.max_steps = 3000;
  request.trial.eval_every_steps = 500;
  request.trial.stop_at_targets = false;
  request.trial.time_budget = 1000;
  const BoardSetup setup = make_board_setup(request);
  StudyStore store(store_);
  const BoardPlan plan = plan_board(store, setup.spec);
  const int64_t total = board_progress(store, plan).total;
  ASSERT_EQ(total, 2 * (1 + 2 + 2));  // self 1 + external 2 + rerun 2 trials per algorithm

  auto run_workers = [&](std::optional<DeadlineWatch::Steady::time_point> deadline) {
    std::atomic<bool> interrupted{false};
    DeadlineWatch watch(interrupted, deadline);
    BoardProgressReporter reporter(store_, plan, 2, 0.2);
    WorkerOptions o = options("");
    o.stop_requested = &watch.stop;
    std::thread second([&] {
      WorkerOptions mine = o;
      mine.label = "worker 2";
      run_board_worker(store_, plan, mine);
    });
    run_board_worker(store_, plan, o);
    second.join();
    return watch.deadline_hit.load();
  };
  EXPECT_TRUE(run_workers(DeadlineWatch::Steady::now() + std::chrono::milliseconds(300)));
  const BoardProgress stopped = board_progress(store, plan);
  EXPECT_LT(stopped.done, total) << "the deadline stopped nothing: make the trials longer";
  EXPECT_FALSE(run_workers(std::nullopt));
  EXPECT_EQ(board_progress(store, plan).done, total);
  for (const auto& t : trials()) EXPECT_EQ(t.status, StoredTrialStatus::complete) << "trial " << t.id;
}

}  // namespace
}  // namespace pacer

namespace pacer {
namespace {

// The channel of a contained trial (run/trial_channel.h), both ends in this process: what the
// child sends is recorded for its own trial (a NaN metric too), a heartbeat renews its lease, and
// what a hostile child could send instead is refused with the reason and closes the channel: a
// malformed line, a nesting bomb, a write after the outcome, an eval index out of range.
class TrialChannelTest : public TuningWorkerThreads {
 protected:
  // The first trial of a fresh study, claimed under `owner_`.
  void SetUp() override {
    TuningWorkerThreads::SetUp();
    study_ = plan(1, 2, 10, 5).front();
    StudyStore store(store_);
    trial_ = *store.claim_trial({study_.id}, owner_, 60);
  }
  std::vector<EvalRecord> evals() const { return StudyStore(store_).evals(trial_.id); }
  static EvalRecord eval(int64_t step, double loss) {
    EvalRecord e;
    e.step = step;
    e.accumulated_submission_time = 0.1 * static_cast<double>(step);
    e.metrics["validation/loss"] = loss;
    return e;
  }
  // Writes `line` raw, as a hostile child would, and returns the server's complaint.
  std::string complaint_after(const std::string& line) {
    TrialChannelServer server(store_, trial_, study_, owner_, worker_options_);
    const int fd = ::dup(server.child_fd());
    server.close_child_end();
    EXPECT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    char reply[256];
    EXPECT_LE(::read(fd, reply, sizeof reply), 0) << "the channel must close on a refused request";
    ::close(fd);
    return server.stop();
  }

  const std::string owner_ = "channel-test-owner";
  WorkerOptions worker_options_ = options("channel");
  StudyRecord study_;
  TrialRecord trial_;
};

TEST_F(TrialChannelTest, TheChildsRecordsReachItsOwnTrialAndNothingElse) {
  TrialChannelServer server(store_, trial_, study_, owner_, worker_options_);
  ChannelLedger ledger(::dup(server.child_fd()));
  server.close_child_end();
  EXPECT_TRUE(ledger.heartbeat());
  ledger.record_eval(0, eval(5, 0.5));
  ledger.record_eval(1, eval(10, std::nan("")));  // a diverged eval: JSON has no NaN
  EXPECT_FALSE(ledger.best_eval_index_to_target().has_value());
  EXPECT_TRUE(std::isinf(ledger.fastest().seconds));
  TrialOutcome outcome;
  outcome.status = TrialStatus::diverged;
  outcome.stop_reason = StopReason::diverged;
  outcome.message = std::string("bad \xff byte");  // invalid UTF-8 from a submission's exception
  outcome.steps = 10;
  ledger.finish(outcome);
  // The outcome is the last write: a second one, or an eval after it, is refused and ends the channel.
  EXPECT_THROW(ledger.record_eval(2, eval(15, 0.1)), Error);
  EXPECT_NE(server.stop().find("after its trial's outcome"), std::string::npos);
  EXPECT_EQ(server.evals_recorded(), 2);

  const std::vector<EvalRecord> stored = evals();
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].metrics.at("validation/loss"), 0.5);
  EXPECT_TRUE(std::isnan(stored[1].metrics.at("validation/loss")));
  StudyStore store(store_);
  const auto trial = store.trial(trial_.id);
  ASSERT_TRUE(trial && trial->result);
  EXPECT_EQ(trial->result->status, TrialStatus::diverged);
  EXPECT_EQ(trial->result->steps, 10);
  // The other trial of the study was never touched.
  for (const auto& t : store.trials(study_.id)) {
    if (t.id != trial_.id) EXPECT_EQ(t.status, StoredTrialStatus::pending);
  }
}

TEST_F(TrialChannelTest, WhatAHostileChildSendsIsRefusedWithTheReason) {
  EXPECT_NE(complaint_after("not json\n").find("malformed request"), std::string::npos);
  EXPECT_NE(complaint_after(std::string(100000, '[') + "\n").find("nested deeper"), std::string::npos);
  EXPECT_NE(complaint_after(R"({"op":"eval","index":-1,"eval":{}})" "\n").find("eval index out of range"), std::string::npos);
  EXPECT_NE(complaint_after(R"({"op":"eval","index":0,"eval":{"step":"x"}})" "\n").find("malformed 'eval'"),
            std::string::npos);
  EXPECT_NE(complaint_after(R"({"op":"finish","outcome":{"status":"won"}})" "\n").find("malformed 'finish'"),
            std::string::npos);
  EXPECT_NE(complaint_after(R"({"op":"delete_study"})" "\n").find("unknown request"), std::string::npos);
  EXPECT_TRUE(evals().empty());
  EXPECT_EQ(StudyStore(store_).trial(trial_.id)->status, StoredTrialStatus::running);  // still the worker's to record
}

}  // namespace
}  // namespace pacer
