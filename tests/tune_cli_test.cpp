// `pacer tune` and `pacer study` end to end on the synthetic workload: a full external study,
// resume without duplicates, kill -9 of one worker (alone, and beside a second worker), Ctrl-C,
// self-tuning, and a malformed search space through the binary (exit 2, nothing written).
#include <gtest/gtest.h>
#include <set>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/metrics_json.h"
#include "store/study_store.h"
#include "support/child_process.h"
#include "support/cli_runner.h"

namespace pacer {
namespace {

class TuneCliTest : public testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    space_ = dir_ + "/space.json";
    std::ofstream(space_) << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"},
                                 "weight_decay": {"feasible_points": [0.0]}})";
    store_ = dir_ + "/tune.db";
  }

  // By default long enough trials (~1 s) that a kill lands inside one; evals every STEPS/12 steps.
  // Tests that kill nothing take short trials (kShort) without racing: with evals every 200 steps
  // which trial racing stops depends on which finished first (the long trials all reach the target
  // at their first eval after step 1, so nothing is stopped). The step limit, not the time budget,
  // must end every trial even on a loaded machine: hence --budget.
  static constexpr int kShort = 2400;
  std::string tune_args(int studies = 2, int trials = 3, int steps = 12000) const {
    return "tune -w synthetic_regression -a sgd --space '" + space_ + "' --studies " + std::to_string(studies) +
           " --trials " + std::to_string(trials) + " --max-steps " + std::to_string(steps) + " --eval-every " +
           std::to_string(steps / 12) + (steps == kShort ? " --no-race" : "") + " --ignore-targets --budget 1000" +
           " --threads 1 --lease 3 --store '" + store_ + "' --out '" + dir_ + "/logs'";
  }

  // Starts pacer in the background (its own process group); output to files.
  pid_t start(const std::string& args, const std::string& name) const {
    return testing::start_child("'" + std::string(PACER_BINARY) + "' " + args, {}, dir_ + "/" + name + ".out",
                                dir_ + "/" + name + ".err");
  }
  static int wait_exit(pid_t pid) { return testing::wait_exit(pid); }

  struct Snapshot {
    std::map<int64_t, TrialRecord> trials;                // by trial id
    std::map<int64_t, std::vector<EvalRecord>> evals;     // latest attempt
    int running_with_evals = 0;
    int complete = 0;
  };
  Snapshot snapshot() const {
    Snapshot s;
    if (!std::filesystem::exists(store_)) return s;
    StudyStoreOptions options;
    options.create = false;
    std::unique_ptr<StudyStore> opened;
    try {
      opened = std::make_unique<StudyStore>(store_, options);
    } catch (const InputError&) {
      return s;  // the file exists but its schema is not written yet: not a store yet
    }
    StudyStore& store = *opened;
    for (const auto& study : store.studies()) {
      for (const auto& t : store.trials(study.id)) {
        s.trials[t.id] = t;
        s.evals[t.id] = store.evals(t.id, t.attempts);
        if (t.status == StoredTrialStatus::running && !s.evals[t.id].empty()) ++s.running_with_evals;
        if (t.status == StoredTrialStatus::complete) ++s.complete;
      }
    }
    return s;
  }
  // Polls the store until `ready` holds (or fails the test after a minute).
  template <typename Predicate>
  Snapshot wait_until(Predicate ready) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < deadline) {
      Snapshot s = snapshot();
      if (ready(s)) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "timed out waiting for the store";
    return snapshot();
  }
  static bool same_evals(const std::vector<EvalRecord>& a, const std::vector<EvalRecord>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].step != b[i].step || a[i].accumulated_submission_time != b[i].accumulated_submission_time ||
          metrics_to_json(a[i].metrics) != metrics_to_json(b[i].metrics)) {  // as stored: NaN equals NaN
        return false;
      }
    }
    return true;
  }
  // After a kill -9 and a resume: what had finished is untouched, and exactly the one trial that
  // was running ran a second time.
  static void expect_only_the_killed_trial_ran_again(const Snapshot& killed, const Snapshot& after) {
    int rerun = 0;
    for (const auto& [id, t] : after.trials) {
      const auto& old = killed.trials.at(id);
      if (old.status == StoredTrialStatus::complete) {
        EXPECT_EQ(t.attempts, 1);
        EXPECT_TRUE(same_evals(killed.evals.at(id), after.evals.at(id))) << "trial " << id << " changed";
      }
      if (old.status == StoredTrialStatus::running) {
        ++rerun;
        EXPECT_EQ(t.attempts, 2);
      }
    }
    EXPECT_EQ(rerun, 1);
  }
  // Every planned trial exactly once, complete, with a full set of evals (step 1, then every STEPS/12).
  void expect_complete(const Snapshot& s, int studies, int trials, int steps = 12000) const {
    EXPECT_EQ(static_cast<int>(s.trials.size()), studies * trials);
    std::set<std::pair<int64_t, int64_t>> keys;
    for (const auto& [id, t] : s.trials) {
      EXPECT_EQ(t.status, StoredTrialStatus::complete) << "trial " << id;
      EXPECT_TRUE(keys.insert({t.study_id, t.index}).second);
      const auto& evals = s.evals.at(id);
      EXPECT_EQ(evals.size(), 13u) << "trial " << id;
      if (!evals.empty()) {
        EXPECT_EQ(evals.back().step, steps);
      }
    }
    for (int k = 1; k <= studies; ++k) {
      for (int i = 1; i <= trials; ++i) {
        const std::string csv = dir_ + "/logs/study_" + std::to_string(k) + "/synthetic_regression_libtorch/trial_" +
                                std::to_string(i) + "/eval_measurements.csv";
        const std::string text = testing::read_file(csv);
        EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 14) << csv;  // header + 13 evals
      }
    }
  }

  std::string space_, store_;
};

TEST_F(TuneCliTest, ExternalStudyCompletesShowsResultsAndResumesWithoutDuplicates) {
  auto r = pacer(tune_args(2, 2, kShort) + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("workload time-to-target (median over 2 studies"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("store overhead:"), std::string::npos) << r.out;
  const Snapshot first = snapshot();
  expect_complete(first, 2, 2, kShort);

  // The same command again runs nothing and changes nothing.
  r = pacer(tune_args(2, 2, kShort));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("4 done, 0 to run"), std::string::npos) << r.err;
  const Snapshot second = snapshot();
  ASSERT_EQ(second.trials.size(), first.trials.size());
  for (const auto& [id, evals] : first.evals) EXPECT_TRUE(same_evals(evals, second.evals.at(id)));

  // More trials extend each study with new, distinct points.
  r = pacer(tune_args(2, 3, kShort) + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const Snapshot third = snapshot();
  expect_complete(third, 2, 3, kShort);
  std::set<std::string> points;
  for (const auto& [id, t] : third.trials) EXPECT_TRUE(points.insert(*t.hparams_json).second) << *t.hparams_json;

  r = pacer("study list '" + store_ + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sgd/synthetic_regression "), std::string::npos) << "the key study show takes\n" << r.out;
  EXPECT_NE(r.out.find("6/6"), std::string::npos) << r.out;
  r = pacer("study show '" + store_ + "' sgd/synthetic_regression/study_2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("study 2"), std::string::npos);
  EXPECT_EQ(r.out.find("study 1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("learning_rate="), std::string::npos) << r.out;
  r = pacer("study show '" + store_ + "' nosuch");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nosuch"), std::string::npos);

  // Machine-readable: tune --json (nothing re-runs) prints the studies as JSON on stdout, not
  // reached is null (never "inf"), 64-bit seeds are strings; export gives one CSV row per trial.
  r = pacer(tune_args(2, 3, kShort) + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto sweeps = nlohmann::json::parse(r.out);
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_TRUE(sweeps[0]["workload_time_to_target"].is_number()) << sweeps[0]["workload_time_to_target"];
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
  EXPECT_EQ(sweeps[0]["studies"].size(), 2u);
  for (const auto& study : sweeps[0]["studies"]) {
    EXPECT_TRUE(study["sampler_seed"].is_string());
    for (const auto& trial : study["trials"]) {
      EXPECT_TRUE(trial["seed"].is_string());
      EXPECT_TRUE(trial["time_to_target"].is_null() || trial["time_to_target"].is_number()) << trial;
    }
  }
  EXPECT_EQ(nlohmann::json::parse(pacer("study show '" + store_ + "' --json").out), sweeps);
  r = pacer("study export '" + store_ + "' sgd/synthetic_regression --csv");
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> lines;
  std::stringstream csv(r.out);
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u + 6u) << r.out;  // header + 2 studies x 3 trials
  EXPECT_EQ(lines[0].rfind("experiment,workload,algorithm,ruleset,study,study_id,best,trial,status,outcome", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find(",hp.learning_rate"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("sgd,synthetic_regression,sgd,external,1,"), std::string::npos) << lines[1];
  r = pacer("study export '" + store_ + "' --out '" + dir_ + "/trials.csv'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::read_file(dir_ + "/trials.csv"), pacer("study export '" + store_ + "'").out);
  EXPECT_EQ(pacer("study export '" + store_ + "' --csv --json").code, 2);
  // The store scores like a log folder, and so does the reference layout written beside it.
  r = pacer("score '" + store_ + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sgd"), std::string::npos) << r.out;
}

// Round 5, item 17: `pacer tune -a sgd` without --space said a space was needed although
// spaces/sgd.json ships; from the repository's folder it now takes that one, saying so.
TEST_F(TuneCliTest, WithoutASpaceTheShippedOneIsTakenWithAWarning) {
  const std::string command = "cd '" + std::string(PACER_SOURCE_DIR) + "' && '" + std::string(PACER_BINARY) +
                              "' tune -w synthetic_regression -a sgd --studies 1 --trials 1 --max-steps 20 "
                              "--eval-every 20 --ignore-targets --threads 1 -q --store '" + store_ + "' 2>'" + dir_ +
                              "/shipped.err' >/dev/null";
  const int status = std::system(command.c_str());
  const std::string err = testing::read_file(dir_ + "/shipped.err");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << err;
  EXPECT_NE(err.find("no --space given: tuning over spaces/sgd.json, the search space shipped for sgd"),
            std::string::npos) << err;
  // Elsewhere (the test's own folder: the repository's root, where the sanitizer stage starts the
  // tests, has spaces/), with no such file, the message says what to give.
  const std::string elsewhere = "cd '" + dir_ + "' && '" + std::string(PACER_BINARY) +
                                "' tune -w synthetic_regression -a sgd --studies 1 --trials 1 --max-steps 20 --store '" +
                                dir_ + "/other.db' 2>'" + dir_ + "/other.err' >/dev/null";
  const int other_status = std::system(elsewhere.c_str());
  testing::CliResult r;
  r.code = WIFEXITED(other_status) ? WEXITSTATUS(other_status) : -1;
  r.err = testing::read_file(dir_ + "/other.err");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("external tuning needs a search space (--space FILE, e.g. spaces/sgd.json)"), std::string::npos)
      << r.err;
}

TEST_F(TuneCliTest, KillNineMidTrialThenTheSameCommandCompletesEveryTrialOnce) {
  const pid_t worker = start(tune_args(), "w1");
  const Snapshot before = wait_until([](const Snapshot& s) { return s.complete >= 1 && s.running_with_evals >= 1; });
  ASSERT_EQ(kill(worker, SIGKILL), 0);
  wait_exit(worker);
  const Snapshot killed = snapshot();

  auto r = pacer(tune_args() + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const Snapshot after = snapshot();
  expect_complete(after, 2, 3);
  expect_only_the_killed_trial_ran_again(killed, after);
  (void)before;
}

TEST_F(TuneCliTest, TwoWorkersOneKilledTheOtherFinishesTheStudy) {
  const pid_t a = start(tune_args(), "a");
  const pid_t b = start(tune_args(), "b");
  // Both workers hold a trial with evals logged.
  wait_until([](const Snapshot& s) { return s.running_with_evals >= 2; });
  if (HasFailure()) {
    ADD_FAILURE() << "worker a said:\n" << testing::read_file(dir_ + "/a.err") << "\nworker b said:\n"
                  << testing::read_file(dir_ + "/b.err");
  }
  ASSERT_EQ(kill(a, SIGKILL), 0);
  wait_exit(a);
  EXPECT_EQ(wait_exit(b), 0) << testing::read_file(dir_ + "/b.err");
  const Snapshot after = snapshot();
  expect_complete(after, 2, 3);
  int attempts = 0;
  for (const auto& [id, t] : after.trials) attempts += t.attempts;
  EXPECT_EQ(attempts, 2 * 3 + 1) << "exactly the killed worker's trial runs twice";
}

// kill -9 of the command that started the workers: each worker stops as on Ctrl-C, releasing its
// trial, instead of running the rest of the study unseen beside the next run's workers.
TEST_F(TuneCliTest, WorkersStopWhenTheCommandThatStartedThemIsKilled) {
  const pid_t parent = start(tune_args(2, 3, 200000) + " --workers 2", "p");  // trials of seconds: still running
  wait_until([](const Snapshot& s) { return s.running_with_evals >= 2; });
  ASSERT_EQ(kill(parent, SIGKILL), 0);
  wait_exit(parent);
  // pgrep's pattern in brackets does not match the shell running it.
  const std::string workers_alive = "pgrep -f -- '[-]-store " + store_ + "' >/dev/null";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::system(workers_alive.c_str()) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(std::system(workers_alive.c_str()), 0) << "a worker outlived the command that started it";
  const Snapshot after = snapshot();
  int interrupted = 0;
  for (const auto& [id, t] : after.trials) interrupted += t.status == StoredTrialStatus::interrupted;
  EXPECT_EQ(interrupted, 2) << "each worker released its trial";
  EXPECT_LT(after.complete, 6);
}

TEST_F(TuneCliTest, WorkersFlagRunsSeveralProcessesOnOneStudy) {
  auto r = pacer(tune_args(1, 4, kShort) + " --workers 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("worker 1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("worker 2:"), std::string::npos) << r.err;
  const Snapshot s = snapshot();
  expect_complete(s, 1, 4, kShort);
  for (const auto& [id, t] : s.trials) EXPECT_EQ(t.attempts, 1);
}

TEST_F(TuneCliTest, CtrlCMarksTheTrialInterruptedAndResumeFinishes) {
  const pid_t worker = start(tune_args(1, 2), "w");
  wait_until([](const Snapshot& s) { return s.running_with_evals >= 1; });
  ASSERT_EQ(kill(worker, SIGINT), 0);
  EXPECT_EQ(wait_exit(worker), 130);
  EXPECT_NE(testing::read_file(dir_ + "/w.err").find("resume"), std::string::npos);
  const Snapshot stopped = snapshot();
  int interrupted = 0;
  for (const auto& [id, t] : stopped.trials) interrupted += t.status == StoredTrialStatus::interrupted;
  EXPECT_EQ(interrupted, 1);
  auto r = pacer(tune_args(1, 2) + " -q");
  ASSERT_EQ(r.code, 0) << r.err;
  expect_complete(snapshot(), 1, 2);
}

TEST_F(TuneCliTest, SelfTuningRunsOneTrialPerStudyWithoutHyperparameters) {
  auto r = pacer("tune -w synthetic_regression -a sgd --ruleset self --studies 2 --max-steps 200 --threads 1 -q --store '" +
                 store_ + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const Snapshot s = snapshot();
  ASSERT_EQ(s.trials.size(), 2u);
  for (const auto& [id, t] : s.trials) EXPECT_FALSE(t.hparams_json.has_value());
  EXPECT_NE(r.out.find("self"), std::string::npos);
  r = pacer("tune -w synthetic_regression -a sgd --ruleset self --space '" + space_ + "' --store '" + store_ + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("self-tuning takes no search space"), std::string::npos) << r.err;
}

// The command maps plan_tune's refusals (tune_request_test: every kind of bad request in process)
// to exit 2 before any store or log folder exists; one of each kind through the binary.
TEST_F(TuneCliTest, MalformedSearchSpacesExitTwoNamingTheKeyBeforeAnyStoreIsWritten) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"learning_rat": {"min": 0.01, "max": 0.1, "scaling": "log"}})", "learning_rat"},  // the space's key
      {R"({"learning_rate": {"min": 0.01, "max": 0.1)", "space.json"},                       // the file
  };
  for (const auto& [json, expected] : cases) {
    std::ofstream(space_) << json;
    auto r = pacer("tune -w synthetic_regression -a sgd --space '" + space_ + "' --store '" + store_ + "' --out '" +
                   dir_ + "/logs'");
    EXPECT_EQ(r.code, 2) << json << "\n" << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << json << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(store_)) << json;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/logs")) << json;
  }
  std::ofstream(space_) << R"({"learning_rate": {"min": 0.01, "max": 0.1, "scaling": "log"}})";
  auto r = pacer("tune -w synthetic_regression -a sgd --space '" + space_ + "' --sampler sobol --store '" + store_ + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sobol"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(store_));
}

// `pacer board`: a small board (2 algorithms x 1 workload, self + external + one rerun) with
// trials of a few tenths of a second, so that kills and deadlines land inside a trial.
class BoardCliTest : public TuneCliTest {
 protected:
  void SetUp() override {
    TuneCliTest::SetUp();
    spaces_ = dir_ + "/spaces";
    std::filesystem::create_directories(spaces_);
    std::ofstream(spaces_ + "/sgd.json") << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"}})";
    std::ofstream(spaces_ + "/momentum.json") << R"({"learning_rate": {"min": 0.01, "max": 0.1, "scaling": "log"}})";
  }
  // 2 algorithms x (self 1 + external 2 + rerun 2 trials) x studies = 10 trials per study index.
  std::string board_args(int studies = 1, const std::string& extra = "", int steps = 6000) const {
    return "board -a sgd,momentum -w synthetic_regression --spaces '" + spaces_ + "' --studies " +
           std::to_string(studies) + " --trials 2 --reruns 1 --workers 1 --max-steps " + std::to_string(steps) +
           " --eval-every 1000 " +
           "--ignore-targets --budget 1000 --lease 3 --store '" + store_ + "' --out '" + dir_ + "/board' " + extra;
  }
  std::string spaces_;
};

TEST_F(BoardCliTest, RunsEveryPartInOrderAndWritesEachPartsLeaderboards) {
  auto r = pacer(board_args(2, "-q", 2000));
  ASSERT_EQ(r.code, 0) << r.err;
  const Snapshot s = snapshot();
  EXPECT_EQ(s.trials.size(), 20u);
  EXPECT_EQ(s.complete, 20);
  // Order: study 1 of every part before any study 2 (the runs interleaved, so a machine that
  // changes speed bends them alike); within a study index, the self-tuning part, then external,
  // then the rerun.
  StudyStoreOptions open;
  open.create = false;
  StudyStore store(store_, open);
  std::map<std::string, std::pair<double, double>> span;  // "<part>/<k>" -> (first start, last start)
  for (const auto& study : store.studies()) {
    const std::string part = study.ruleset == "self" ? "0self"
                             : study.experiment.find("@rerun1") != std::string::npos ? "2rerun1" : "1external";
    for (const auto& t : store.trials(study.id)) {
      auto [it, fresh] = span.emplace(std::to_string(study.study_index) + "/" + part,
                                      std::make_pair(*t.started_at, *t.started_at));
      it->second.first = std::min(it->second.first, *t.started_at);
      it->second.second = std::max(it->second.second, *t.started_at);
    }
  }
  ASSERT_EQ(span.size(), 6u);
  for (auto it = span.begin(); std::next(it) != span.end(); ++it) {
    EXPECT_LE(it->second.second, std::next(it)->second.first) << it->first << " before " << std::next(it)->first;
  }
  for (const char* file : {"/board/board.md", "/board/self/seconds/scores.json", "/board/external/steps/scores.json",
                           "/board/rerun1/seconds/report.html", "/board/external/seconds/performance_profiles.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(dir_ + file)) << file;
  }
  const std::string md = testing::read_file(dir_ + "/board/board.md");
  EXPECT_NE(md.find("Trials done: 20 of 20"), std::string::npos) << md;
  EXPECT_NE(md.find("### rerun1"), std::string::npos) << md;
  EXPECT_EQ(md.find("@rerun"), std::string::npos) << "a rerun scores under the algorithm's name\n" << md;
  // The rerun part is its own leaderboard: two submissions, named as the algorithms.
  const auto scores = nlohmann::json::parse(testing::read_file(dir_ + "/board/rerun1/seconds/scores.json"));
  EXPECT_EQ(scores["submissions"].size(), 2u) << scores.dump();
  // pacer score reproduces each part's table from the store: the same scores as the board's.
  for (const std::string part : {"external", "rerun1"}) {
    const std::string out = dir_ + "/score_" + part;
    const auto scored = pacer("score '" + store_ + "' --board-part " + part + " --out '" + out + "'");
    ASSERT_EQ(scored.code, 0) << scored.err;
    const auto mine = nlohmann::json::parse(testing::read_file(out + "/scores.json"));
    const auto board = nlohmann::json::parse(testing::read_file(dir_ + "/board/" + part + "/seconds/scores.json"));
    ASSERT_EQ(mine["submissions"].size(), 2u) << part;
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(mine["submissions"][i]["name"], board["submissions"][i]["name"]) << part;
      EXPECT_DOUBLE_EQ(mine["submissions"][i]["score"].get<double>(), board["submissions"][i]["score"].get<double>()) << part;
    }
  }
  EXPECT_EQ(pacer("score '" + store_ + "' --board-part rerun2").code, 2);  // no such part: said, not an empty board
  EXPECT_EQ(pacer("score '" + store_ + "' --board-part rerun1x").code, 2);
  // self and external share experiment names: the ruleset flag must agree with the part.
  EXPECT_EQ(pacer("score '" + store_ + "' --board-part self").code, 2);
  EXPECT_EQ(pacer("score '" + store_ + "' --board-part external --self-tuning").code, 2);
  EXPECT_EQ(pacer("score '" + store_ + "' --board-part self --self-tuning").code, 0);
  // Again: nothing left to run, the same outputs.
  r = pacer(board_args(2, "-q", 2000));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(snapshot().trials.size(), 20u);
  EXPECT_EQ(testing::read_file(dir_ + "/board/board.md"), md);
}

TEST_F(BoardCliTest, KillNineMidTrialThenTheSameCommandFinishesEveryTrialOnce) {
  const pid_t board = start(board_args(), "board");
  wait_until([](const Snapshot& s) { return s.complete >= 3 && s.running_with_evals >= 1; });
  ASSERT_EQ(kill(board, SIGKILL), 0);
  wait_exit(board);
  const Snapshot killed = snapshot();
  auto r = pacer(board_args(1, "-q"));
  ASSERT_EQ(r.code, 0) << r.err;
  const Snapshot after = snapshot();
  EXPECT_EQ(after.complete, 10);
  expect_only_the_killed_trial_ran_again(killed, after);
}

TEST_F(BoardCliTest, MaxHoursStopsCleanlyAndTheSameCommandContinues) {
  // The deadline is a third of what the whole board takes on this machine, timed here on a store
  // of its own: a fixed deadline let a fast machine finish all ten trials before it (CI, stop 71).
  std::string calibration = board_args(1, "-q");
  for (const auto& [from, to] : {std::pair{store_, dir_ + "/calibration.db"},
                                 std::pair{dir_ + "/board'", dir_ + "/calibration'"}}) {
    calibration.replace(calibration.find(from), from.size(), to);
  }
  const auto started = std::chrono::steady_clock::now();
  auto r = pacer(calibration);
  ASSERT_EQ(r.code, 0) << r.err;
  const double whole_board_sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::ostringstream deadline;
  deadline.precision(9);
  deadline << "--max-hours " << whole_board_sec / 3.0 / 3600.0;
  r = pacer(board_args(1, deadline.str()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the --max-hours deadline passed"), std::string::npos) << r.err;
  // How many trials finish before the deadline still varies (none under a sanitizer on a loaded
  // machine); what matters is that it stops short, gives the running trial back and resumes.
  const Snapshot stopped = snapshot();
  EXPECT_LT(stopped.complete, 10);
  for (const auto& [id, t] : stopped.trials) EXPECT_NE(t.status, StoredTrialStatus::running) << "trial " << id;
  EXPECT_NE(testing::read_file(dir_ + "/board/board.md").find("Trials done: " + std::to_string(stopped.complete) +
                                                                " of 10"),
            std::string::npos);
  r = pacer(board_args(1, "-q"));
  ASSERT_EQ(r.code, 0) << r.err;
  const Snapshot after = snapshot();
  EXPECT_EQ(after.complete, 10);
  for (const auto& [id, t] : after.trials) {
    if (stopped.trials.at(id).status == StoredTrialStatus::complete) {
      EXPECT_EQ(t.attempts, 1) << "trial " << id << " ran twice";
    }
  }
}

// A newcomer against a small board until separated, with two worker processes: it takes the
// board's studies and trials, its looks are announced, every opponent gets a verdict line, and an
// opponent's extra study (when a comparison was undecided after the first look) runs in the
// newcomer's store as that opponent's study 3, paired by seed with the newcomer's study 3.
TEST_F(BoardCliTest, ANewcomerUntilSeparatedJudgesEachOpponentAtFixedLooks) {
  std::ofstream(spaces_ + "/nadamw.json") << R"({"learning_rate": {"min": 0.001, "max": 0.03, "scaling": "log"}})";
  const std::string common = " -w synthetic_regression --spaces '" + spaces_ + "' --max-steps 300 --eval-every 100 "
                             "--ignore-targets --budget 1000 -q ";
  auto r = pacer("board -a sgd,nadamw --rulesets external --reruns 0 --paired --no-race --studies 2 --trials 2 --workers 1"
                 + common + "--store '" + store_ + "' --out '" + dir_ + "/board'");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string mine = dir_ + "/newcomer.db";
  r = pacer("board -a momentum --against '" + store_ + "' --until-separated --max-studies 3 --workers 2" + common +
            "--store '" + mine + "' --out '" + dir_ + "/newcomer'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("looks at 2 studies (alpha 0.0167), 3 studies (alpha 0.0333)"), std::string::npos) << r.err;
  // Each judged look is said once while the run goes on (by one of the two workers).
  const std::string first_look = "pacer board: look 1 of 2 (2 studies; alpha 0.0167): momentum against ";
  ASSERT_NE(r.err.find(first_look), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(first_look, r.err.find(first_look) + 1), std::string::npos) << "said twice:\n" << r.err;
  for (const char* opponent : {"nadamw", "sgd"}) {
    const std::string line = std::string("momentum against ") + opponent + ": ";
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find(", at look "), std::string::npos) << r.out;
  StudyStoreOptions open;
  open.create = false;
  StudyStore store(mine, open);
  std::map<std::string, std::set<int>> studies;
  std::map<std::pair<std::string, int>, std::set<uint64_t>> seeds;
  for (const auto& study : store.studies()) {
    studies[study.experiment].insert(study.study_index);
    EXPECT_EQ(store.trials(study.id).size(), 2u) << "the board's trials per study";
    for (const auto& t : store.trials(study.id)) seeds[{study.experiment, study.study_index}].insert(t.seed);
  }
  ASSERT_TRUE(studies.count("momentum"));
  EXPECT_TRUE(studies["momentum"].count(1) && studies["momentum"].count(2));
  for (const auto& [name, indices] : studies) {
    if (name == "momentum") continue;
    EXPECT_EQ(indices, (std::set<int>{3})) << name << ": only the study past the board's";
    EXPECT_EQ((seeds[{name, 3}]), (seeds[{"momentum", 3}])) << "paired with the newcomer's study 3";
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/newcomer/board.md"));
}

TEST_F(BoardCliTest, BadInputExitsTwoNamingTheCulpritBeforeAnyStoreIsWritten) {
  auto r = pacer(board_args(1, "--rulesets external,hyper"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hyper"), std::string::npos) << r.err;
  r = pacer("board -a sgd,nesterov -w synthetic_regression --spaces '" + spaces_ + "' --store '" + store_ + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nesterov.json"), std::string::npos) << r.err;
  r = pacer(board_args(1, "-a sgd"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("listed twice"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(store_));
}

}  // namespace
}  // namespace pacer
