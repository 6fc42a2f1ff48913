// Racing is exact: the same studies run with and without it give the same scores, the same best
// trial in every study and the same performance profiles, on both time axes (docs/tuning.md,
// "Racing"). Times come from a clock that charges a fixed cost per reading, so they depend only
// on what each trial does; 3 algorithms x 2 workloads x 3 studies x 5 trials, fixed seeds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "score/scoring.h"
#include "score/store_source.h"
#include "store/study_store.h"
#include "tune/search_space.h"
#include "tune/study_summary.h"
#include "tune/sweep.h"
#include "tune/tuning_worker.h"
#include "workloads/registry.h"
#include "workloads/regression_workload.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

// 100 us of submission time per reading: the runner reads its clock a fixed number of times per
// step, eval and checkpoint, so every trial's times are a function of its own steps.
class ReadingCountClock : public Clock {
 public:
  double now() override { return 1e-4 * static_cast<double>(readings_++); }

 private:
  int64_t readings_ = 0;
};

// A second cheap workload: synthetic_regression's data under another name and a slightly looser
// target, so that its studies race differently.
const char* const kSecondWorkload = "race_regression";
void register_second_workload() {
  static std::once_flag once;
  std::call_once(once, [] {
    WorkloadSpec spec = workload_spec("synthetic_regression");
    spec.name = kSecondWorkload;
    spec.validation_target = 0.2480;
    spec.test_target = 0.2630;
    register_workload(spec, [](const WorkloadSpec& s) {
      return std::make_unique<SyntheticRegressionWorkload>(s, SyntheticRegressionOptions{});
    });
  });
}

struct RaceRun {
  std::string store;
  WorkerReport report;
};

class RaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_second_workload();
    dir_ = ::testing::TempDir() + "/race_test_" + std::to_string(::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ + "/targets.json")
        << R"({"race_regression": {"metric": "loss", "direction": "min", "validation_target": 0.2480, "budget": 1}})";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Learning-rate ranges that give each study a mix of trials that reach the target early, late
  // and never within the budget.
  std::vector<SweepSpec> sweeps() const {
    const std::map<std::string, std::string> spaces = {
        {"momentum", R"({"learning_rate": {"min": 0.002, "max": 0.3, "scaling": "log"}})"},
        {"adamw", R"({"learning_rate": {"min": 0.0005, "max": 0.1, "scaling": "log"}})"},
        {"nadamw", R"({"learning_rate": {"min": 0.0005, "max": 0.1, "scaling": "log"}})"},
    };
    std::vector<SweepSpec> out;
    for (const std::string workload : {"synthetic_regression", kSecondWorkload}) {
      for (const auto& [algorithm, space] : spaces) {
        SweepSpec s;
        s.workload = workload;
        s.algorithm = algorithm;
        s.space = SearchSpace::from_json_text(space, algorithm + " space");
        s.studies = 3;
        s.trials = 5;
        s.seed = 7;
        s.sampler_options.seed = 11;
        s.trial.device = "cpu";
        s.trial.time_budget = 0.25;  // of the counting clock: about 800 steps; keeps the test short
        out.push_back(s);
      }
    }
    return out;
  }

  RaceRun run(bool race) const {
    RaceRun r;
    r.store = dir_ + (race ? "/race.db" : "/full.db");
    StudyStore store(r.store);
    const auto studies = plan_sweeps(store, sweeps());
    WorkerOptions options;
    options.race = race;
    options.make_trial_clock = [] { return std::make_unique<ReadingCountClock>(); };
    r.report = run_tuning_worker(r.store, studies, options);
    return r;
  }

  ScoreResult score(const std::string& store, TimeAxis axis) const {
    StoreSource source({store}, false);
    CombinedSource combined;
    combined.add(source.trials(), source.submissions());
    ScoreOptions options;
    options.time_axis = axis;
    options.targets_file = dir_ + "/targets.json";
    return score_submissions(combined, options);
  }

  // Per study (experiment/workload/study_k): the index of its best trial, or -1.
  static std::map<std::string, int64_t> best_trials(const std::string& path) {
    StudyStore store(path, StudyStoreOptions{false});
    std::map<std::string, int64_t> out;
    for (const auto& sweep : summarize_studies(store, store.studies())) {
      for (const auto& s : sweep.studies) out[s.study.name()] = s.best_trial ? *s.best_trial : -1;
    }
    return out;
  }

  std::string dir_;
};

TEST_F(RaceTest, RacingChangesNoScoreNoBestTrialAndNoProfileOnEitherAxis) {
  const RaceRun full = run(false), raced = run(true);
  ASSERT_EQ(full.report.trials_run, 90);
  ASSERT_EQ(raced.report.trials_run, 90);
  EXPECT_EQ(full.report.trials_raced, 0);
  // The studies race: some trials stopped early (else this test could not fail).
  EXPECT_GT(raced.report.trials_raced, 0);

  const auto full_best = best_trials(full.store), raced_best = best_trials(raced.store);
  EXPECT_EQ(full_best, raced_best);
  int studies_with_a_best = 0;
  for (const auto& [name, best] : full_best) studies_with_a_best += best >= 0;
  EXPECT_GT(studies_with_a_best, 3);  // most studies have a trial that reaches

  for (TimeAxis axis : {TimeAxis::seconds, TimeAxis::steps}) {
    SCOPED_TRACE(axis == TimeAxis::seconds ? "seconds" : "steps");
    const ScoreResult a = score(full.store, axis), b = score(raced.store, axis);
    ASSERT_EQ(a.submissions.size(), 3u);
    ASSERT_EQ(a.submissions.size(), b.submissions.size());
    EXPECT_EQ(a.tau, b.tau);
    for (size_t i = 0; i < a.submissions.size(); ++i) {
      const SubmissionScore &x = a.submissions[i], &y = b.submissions[i];
      SCOPED_TRACE(x.name);
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.rank, y.rank);
      EXPECT_EQ(x.score, y.score);
      EXPECT_EQ(x.rho, y.rho);
      ASSERT_EQ(x.workloads.size(), y.workloads.size());
      for (size_t w = 0; w < x.workloads.size(); ++w) {
        EXPECT_EQ(x.workloads[w].time, y.workloads[w].time) << x.workloads[w].workload;
        EXPECT_EQ(x.workloads[w].study_times, y.workloads[w].study_times) << x.workloads[w].workload;
        EXPECT_EQ(x.workloads[w].ratio, y.workloads[w].ratio) << x.workloads[w].workload;
      }
    }
  }

  // Stopped trials are recorded as such, with the bound that stopped them, and cost fewer steps.
  StudyStore store(raced.store, StudyStoreOptions{false});
  int64_t stopped = 0, raced_steps = 0, full_steps = 0;
  for (const auto& study : store.studies()) {
    for (const auto& t : store.trials(study.id)) {
      raced_steps += t.steps.value_or(0);
      if (t.outcome == "stopped") {
        ++stopped;
        EXPECT_EQ(t.stop_reason, "race_study_best");
        EXPECT_EQ(t.status, StoredTrialStatus::complete);
        EXPECT_FALSE(t.time_to_target);
      }
    }
  }
  EXPECT_EQ(stopped, raced.report.trials_raced);
  StudyStore unraced(full.store, StudyStoreOptions{false});
  for (const auto& study : unraced.studies()) {
    for (const auto& t : unraced.trials(study.id)) full_steps += t.steps.value_or(0);
  }
  EXPECT_LT(raced_steps, full_steps);
  std::printf("racing: %lld of 90 trials stopped; %lld steps instead of %lld (%.0f%% saved)\n",
              static_cast<long long>(stopped), static_cast<long long>(raced_steps), static_cast<long long>(full_steps),
              100.0 * (1.0 - static_cast<double>(raced_steps) / static_cast<double>(full_steps)));
}

}  // namespace
}  // namespace pacer
