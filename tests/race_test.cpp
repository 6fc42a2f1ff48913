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
#include <limits>
#include <memory>
#include <set>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "score/scoring.h"
#include "score/store_source.h"
#include "store/study_store.h"
#include "tune/search_space.h"
#include "tune/study_summary.h"
#include "tune/board_results.h"
#include "tune/board_stability.h"
#include "tune/sweep.h"
#include "run/tuning_worker.h"
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

// synthetic_regression's data under another name, with other targets and eval cadence.
void register_regression_variant(const std::string& name, double validation_target, double test_target,
                                 double eval_period_sec = 0.0, int64_t step_hint = 0) {
  WorkloadSpec spec = workload_spec("synthetic_regression");
  spec.name = name;
  spec.validation_target = validation_target;
  spec.test_target = test_target;
  if (eval_period_sec > 0) spec.eval_period_sec = eval_period_sec;
  if (step_hint > 0) spec.step_hint = step_hint;
  register_workload(spec, [](const WorkloadSpec& s) {
    return std::make_unique<SyntheticRegressionWorkload>(s, SyntheticRegressionOptions{});
  });
}

// A second cheap workload with a slightly looser target, so that its studies race differently;
// and, for the 4x cut-off, one with evals every 0.01 s, a target the board's algorithms reach
// early and a step hint that spans the 0.25 s budget, so that 4x their time is well inside it
// (and schedules decay over the whole budget: some slow trials reach late).
const char* const kSecondWorkload = "race_regression";
const char* const kCutoffWorkload = "cutoff_regression";
void register_test_workloads() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_regression_variant(kSecondWorkload, 0.2480, 0.2630);
    register_regression_variant(kCutoffWorkload, 0.27, 0.285, 0.01, 2000);
  });
}

struct RaceRun {
  std::string store;
  WorkerReport report;
};

class RaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_test_workloads();
    dir_ = ::testing::TempDir() + "/race_test_" + std::to_string(::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ + "/targets.json")
        << R"({"race_regression": {"metric": "loss", "direction": "min", "validation_target": 0.2480, "budget": 1},)"
        << R"( "cutoff_regression": {"metric": "loss", "direction": "min", "validation_target": 0.27, "budget": 1}})";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Learning-rate ranges that give each study a mix of trials that reach the target early, late
  // and never within the budget.
  std::vector<SweepSpec> sweeps(std::vector<std::string> workloads = {"synthetic_regression", kSecondWorkload}) const {
    const std::map<std::string, std::string> spaces = {
        {"momentum", R"({"learning_rate": {"min": 0.002, "max": 0.3, "scaling": "log"}})"},
        {"adamw", R"({"learning_rate": {"min": 0.0005, "max": 0.1, "scaling": "log"}})"},
        {"nadamw", R"({"learning_rate": {"min": 0.0005, "max": 0.1, "scaling": "log"}})"},
    };
    std::vector<SweepSpec> out;
    for (const std::string& workload : workloads) {
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

  RaceRun run(bool race, const std::string& name = "", const std::vector<SweepSpec>& planned = {},
              std::shared_ptr<const RaceBounds> bounds = nullptr) const {
    RaceRun r;
    r.store = dir_ + "/" + (name.empty() ? (race ? "race" : "full") : name) + ".db";
    StudyStore store(r.store);
    const auto studies = plan_sweeps(store, planned.empty() ? sweeps() : planned);
    WorkerOptions options;
    options.race = race;
    options.race_cutoff = race;  // AlgoPerf's score is unchanged by both rules (the pace by the first)
    options.race_bounds = std::move(bounds);
    options.make_trial_clock = [] { return std::make_unique<ReadingCountClock>(); };
    r.report = run_tuning_worker(r.store, studies, options);
    return r;
  }

  ScoreResult score(const std::string& store, TimeAxis axis, const std::string& newcomer = "") const {
    StoreSource source({store}, false);
    CombinedSource combined;
    combined.add(source.trials(), source.submissions());
    if (!newcomer.empty()) {
      StoreSource more({newcomer}, false);
      combined.add(more.trials(), more.submissions());
    }
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

  // Per study whose time (by seconds or by steps) is past 4x its workload's fastest median.
  std::set<std::string> studies_beyond_the_cutoff(const std::string& store) const {
    std::set<std::string> out;
    for (TimeAxis axis : {TimeAxis::seconds, TimeAxis::steps}) {
      const ScoreResult r = score(store, axis);
      for (size_t w = 0; w < r.workloads.size(); ++w) {
        double fastest = std::numeric_limits<double>::infinity();
        for (const auto& sub : r.submissions)
          if (sub.workloads[w].time) fastest = std::min(fastest, *sub.workloads[w].time);
        for (const auto& sub : r.submissions) {
          const auto& ws = sub.workloads[w];
          for (size_t k = 0; k < ws.studies.size(); ++k) {
            if (!(ws.study_times[k] <= 4 * fastest)) {
              out.insert(sub.name + "/" + ws.workload + "/study_" + std::to_string(ws.studies[k]));
            }
          }
        }
      }
    }
    return out;
  }

  // Same score, profile and ratio up to r_max; times equal where they are within the cut-off.
  static void expect_same_within_the_cutoff(const SubmissionScore& x, const SubmissionScore& y) {
    ASSERT_EQ(x.workloads.size(), y.workloads.size());
    for (size_t w = 0; w < x.workloads.size(); ++w) {
      const WorkloadScore &a = x.workloads[w], &b = y.workloads[w];
      SCOPED_TRACE(a.workload);
      const bool a_in = a.ratio <= 4.0, b_in = b.ratio <= 4.0;
      EXPECT_EQ(a_in, b_in);
      if (a_in && b_in) {
        EXPECT_EQ(a.time, b.time);
        EXPECT_EQ(a.ratio, b.ratio);
      }
      ASSERT_EQ(a.study_times.size(), b.study_times.size());
    }
  }

  // The same leaderboard: names, ranks, scores, profiles, and times up to the cut-off.
  static void expect_same_scores(const ScoreResult& a, const ScoreResult& b) {
    ASSERT_EQ(a.submissions.size(), b.submissions.size());
    EXPECT_EQ(a.tau, b.tau);
    for (size_t i = 0; i < a.submissions.size(); ++i) {
      const SubmissionScore &x = a.submissions[i], &y = b.submissions[i];
      SCOPED_TRACE(x.name);
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.rank, y.rank);
      EXPECT_EQ(x.score, y.score);
      EXPECT_EQ(x.rho, y.rho);
      expect_same_within_the_cutoff(x, y);
    }
  }

  static int64_t stopped_by(const std::string& path, const std::string& reason) {
    StudyStore store(path, StudyStoreOptions{false});
    int64_t n = 0;
    for (const auto& study : store.studies())
      for (const auto& t : store.trials(study.id)) n += t.result && to_string(t.result->stop_reason) == reason;
    return n;
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

  // A study's best trial is the same with racing, except where the study's time is past 4x the
  // workload's fastest median either way (then the 4x bound may stop a trial that would have
  // been picked, for another past 4x: the ratio is above r_max both ways).
  const auto full_best = best_trials(full.store), raced_best = best_trials(raced.store);
  const auto beyond = studies_beyond_the_cutoff(full.store);
  for (const auto& [name, best] : full_best) {
    if (!beyond.count(name)) {
      EXPECT_EQ(best, raced_best.at(name)) << name;
    }
  }
  int studies_with_a_best = 0;
  for (const auto& [name, best] : full_best) studies_with_a_best += best >= 0;
  EXPECT_GT(studies_with_a_best, 3);  // most studies have a trial that reaches

  for (TimeAxis axis : {TimeAxis::seconds, TimeAxis::steps}) {
    SCOPED_TRACE(axis == TimeAxis::seconds ? "seconds" : "steps");
    const ScoreResult a = score(full.store, axis), b = score(raced.store, axis);
    ASSERT_EQ(a.submissions.size(), 3u);
    expect_same_scores(a, b);
  }

  // Stopped trials are recorded as such, with the bound that stopped them, and cost fewer steps.
  StudyStore store(raced.store, StudyStoreOptions{false});
  int64_t stopped = 0, raced_steps = 0, full_steps = 0;
  for (const auto& study : store.studies()) {
    for (const auto& t : store.trials(study.id)) {
      ASSERT_TRUE(t.result);
      raced_steps += t.result->steps;
      if (t.result->status == TrialStatus::stopped) {
        ++stopped;
        EXPECT_TRUE(is_race_stop(t.result->stop_reason)) << to_string(t.result->stop_reason);
        EXPECT_EQ(t.status, StoredTrialStatus::complete);
        EXPECT_FALSE(t.result->time_to_target);
      }
    }
  }
  EXPECT_EQ(stopped, raced.report.trials_raced);
  StudyStore unraced(full.store, StudyStoreOptions{false});
  for (const auto& study : unraced.studies()) {
    for (const auto& t : unraced.trials(study.id)) full_steps += t.result ? t.result->steps : 0;
  }
  EXPECT_LT(raced_steps, full_steps);
  std::printf("racing: %lld of 90 trials stopped; %lld steps instead of %lld (%.0f%% saved)\n",
              static_cast<long long>(stopped), static_cast<long long>(raced_steps), static_cast<long long>(full_steps),
              100.0 * (1.0 - static_cast<double>(raced_steps) / static_cast<double>(full_steps)));
}

// A newcomer raced against a fixed board (pacer board --against): the board's times set the 4x
// cut-off; the newcomer's scores among the board's algorithms are the same as without racing.
TEST_F(RaceTest, TheCutoffOfAFixedBoardChangesNoScore) {
  const RaceRun board = run(false, "board", sweeps({kCutoffWorkload}));
  SweepSpec s = sweeps({kCutoffWorkload}).front();
  s.algorithm = s.experiment = "sgd";
  // Slower learning rates than the board's: every study's trials pass 4x its fastest time, some
  // reach later within the budget, some never (so racing changes trials, and must not change scores).
  s.space = SearchSpace::from_json_text(R"({"learning_rate": {"min": 0.0003, "max": 0.002, "scaling": "log"}})", "sgd space");
  const std::vector<SweepSpec> newcomer = {s};
  auto bounds = std::make_shared<RaceBounds>(board_bounds(read_board_sources({board.store}), "v0.6", "wall"));
  const RaceRun full = run(false, "newcomer_full", newcomer), raced = run(true, "newcomer_raced", newcomer, bounds);
  ASSERT_EQ(raced.report.trials_run, 15);
  const int64_t cut = stopped_by(raced.store, "race_4x_fastest");
  EXPECT_GT(cut, 0) << "the board's bound stopped no trial: this test could not fail";
  // Unraced, some of those trials reach: after 4x the fastest, inside the budget.
  int64_t late = 0;
  {
    StudyStore unraced(full.store, StudyStoreOptions{false});
    for (const auto& study : unraced.studies())
      for (const auto& t : unraced.trials(study.id)) late += t.result && t.result->time_to_target.has_value();
  }
  EXPECT_GT(late, 0) << "no newcomer trial reached: the scores could not differ";
  for (TimeAxis axis : {TimeAxis::seconds, TimeAxis::steps}) {
    SCOPED_TRACE(axis == TimeAxis::seconds ? "seconds" : "steps");
    const ScoreResult a = score(board.store, axis, full.store), b = score(board.store, axis, raced.store);
    ASSERT_EQ(a.submissions.size(), 4u);
    expect_same_scores(a, b);
  }
  std::printf("cut-off: %lld of 15 newcomer trials stopped past 4x the board's fastest (%lld reached later without "
              "racing), %lld by the study best\n",
              static_cast<long long>(cut), static_cast<long long>(late),
              static_cast<long long>(stopped_by(raced.store, "race_study_best")));
}

// A board's step costs: per trial the submission time between its first and last eval over the
// steps between them, the median over an algorithm's trials of every part (reruns and self-tuning
// count under the algorithm's name), and ratios to the reference's.
TEST(BoardStepCosts, MedianOfEachTrialsSlopeOverEveryPartAndRatiosToTheReference) {
  const fs::path dir = fs::temp_directory_path() / ("pacer_step_costs_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "board.db").string();
  {
    StudyStore store(path);
    // (experiment, ruleset, workload) -> per trial (seconds per step, evals); a trial with one eval
    // has no span and is left out; `start` is the time of the first eval (left out of the slope).
    struct Planned {
      std::string experiment, ruleset, workload;
      std::vector<std::pair<double, int>> trials;
    };
    const std::vector<Planned> plan = {
        {"adamw", "external", "fmnist_mlp", {{0.010, 3}, {0.014, 3}, {0.012, 3}}},
        {"lion", "external", "fmnist_mlp", {{0.018, 3}, {0.5, 1}}},
        {"lion@rerun1", "external", "fmnist_mlp", {{0.024, 2}}},
        {"lion", "self", "fmnist_mlp", {{0.022, 3}}},
        {"lion", "external", "fortunes_lm", {{0.1, 3}}},
        {"sgd", "external", "fmnist_mlp", {{0.006, 3}}},  // not on this board
    };
    const std::string me = StudyStore::make_owner_id();
    int k = 0;
    for (const auto& p : plan) {
      StudyDefinition d;
      d.experiment = p.experiment;
      d.sweep = p.experiment + "#" + p.workload + "#" + p.ruleset;
      d.identity = d.sweep + "#1";
      d.workload = p.workload;
      d.algorithm = p.experiment.substr(0, p.experiment.find('@'));
      d.ruleset = p.ruleset;
      d.sampler = p.ruleset == "self" ? "" : "halton";
      d.space_json = p.ruleset == "self" ? "" : "{}";
      d.trial_spec = R"({"clock": "cpu"})";
      d.trials = static_cast<int64_t>(p.trials.size());
      const auto studies = store.ensure_studies({d}, [](const StudyRecord& s, int64_t first, int64_t count,
                                                        int64_t position) {
        std::vector<NewTrial> out;
        for (int64_t i = 0; i < count; ++i) {
          NewTrial t;
          t.position = position + i;
          if (s.ruleset != "self") t.hparams_json = "{}";
          t.seed = static_cast<uint64_t>(first + i);
          out.push_back(t);
        }
        return out;
      });
      for (const auto& [seconds_per_step, evals] : p.trials) {
        auto trial = store.claim_trial({studies[0].id}, me, 60);
        ASSERT_TRUE(trial.has_value());
        const double start = 0.3 * ++k;  // start-up differs from trial to trial
        for (int i = 0; i < evals; ++i) {
          EvalRecord e;
          e.step = i == 0 ? 1 : 100 * i;
          e.accumulated_submission_time = start + seconds_per_step * static_cast<double>(e.step - 1);
          e.metrics = {{"validation/loss", 1.0}};
          store.record_eval(trial->id, me, trial->attempts, i, e);
        }
        TrialOutcome o;
        o.status = TrialStatus::not_reached;
        store.finish_trial(trial->id, me, o);
      }
    }
  }
  const BoardStepCosts costs = board_step_costs({path}, {"lion", "adamw"});
  EXPECT_EQ(costs.reference, "adamw");
  EXPECT_EQ(costs.clock, "cpu");
  EXPECT_EQ(costs.algorithms, (std::vector<std::string>{"lion", "adamw"}));
  EXPECT_EQ(costs.workloads, (std::vector<std::string>{"fmnist_mlp", "fortunes_lm"}));
  const StepCost adamw = costs.cost.at("adamw").at("fmnist_mlp"), lion = costs.cost.at("lion").at("fmnist_mlp");
  EXPECT_NEAR(adamw.seconds_per_step, 0.012, 1e-12);
  EXPECT_EQ(adamw.trials, 3);
  EXPECT_NEAR(lion.seconds_per_step, 0.022, 1e-12);  // 0.018, 0.022 (self), 0.024 (rerun); not the one-eval trial
  EXPECT_EQ(lion.trials, 3);
  EXPECT_NEAR(*costs.ratio("lion", "fmnist_mlp"), 0.022 / 0.012, 1e-9);
  EXPECT_FALSE(costs.ratio("lion", "fortunes_lm").has_value());  // adamw has no trial there
  EXPECT_NEAR(*costs.mean_ratio("lion"), 0.022 / 0.012, 1e-9);  // over the workloads with a ratio
  EXPECT_NEAR(*costs.mean_ratio("adamw"), 1.0, 1e-12);
  EXPECT_EQ(costs.cost.count("sgd"), 0u);
  const std::string csv = step_costs_csv(costs);
  EXPECT_NE(csv.find("algorithm,workload,seconds_per_step,trials,ratio_to_adamw\nlion,fmnist_mlp,0.022,3,1.8333\n"
                     "lion,fortunes_lm,0.1,1,\nadamw,fmnist_mlp,0.012,3,1.0000\n"),
            std::string::npos)
      << csv;
  const std::string md = board_markdown({}, BoardProgress{}, &costs);
  EXPECT_NE(md.find("| lion | 1.83 | 1.83 | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| adamw | 1.00 | 12 ms | - |"), std::string::npos) << md;
  fs::remove_all(dir);
}

// The bootstrap over studies: an algorithm ahead in every study is distinguishable from the next
// (above it in every resample, rank interval 1-1); two whose study times interleave are a tie
// within the noise; a rerun identical to the external run agrees with rho = tau = 1.
TEST(BoardStability, ResamplingStudiesSeparatesClearLeadsFromTiesWithinTheNoise) {
  // (algorithm -> per study the time to target), on two workloads alike.
  const std::map<std::string, std::vector<double>> times = {
      {"a", {0.10, 0.11, 0.12}}, {"b", {0.30, 0.30, 0.30}}, {"c", {0.25, 0.31, 0.36}}};
  std::vector<TrialLog> trials;
  for (const std::string workload : {"synthetic_regression", "fmnist_mlp"}) {
    const WorkloadSpec spec = workload_spec(workload);
    const double reach = spec.higher_is_better ? 1.0 : 0.0, miss = spec.higher_is_better ? 0.0 : 1e9;
    for (const auto& [name, study_times] : times) {
      for (size_t k = 0; k < study_times.size(); ++k) {
        TrialLog t;
        t.submission = name;
        t.workload = workload;
        t.study = static_cast<int>(k + 1);
        t.trial = 1;
        t.source = name + "/" + workload + "/study_" + std::to_string(k + 1);
        t.rows = 2;
        t.columns["validation/" + spec.target_metric] = {miss, reach};
        t.columns["score"] = {study_times[k] / 2, study_times[k]};
        t.columns["global_step"] = {1, std::round(1000 * study_times[k])};
        trials.push_back(t);
      }
    }
  }
  const std::vector<std::string> names = {"a", "b", "c"};
  auto part = [&](const std::string& name, int rerun) {
    BoardPartScores p;
    p.part = BoardPart{name, Ruleset::external, rerun};
    p.trials = trials;
    p.names = names;
    ScoreOptions options;
    p.seconds = score_trials(trials, names, options);
    options.time_axis = TimeAxis::steps;
    p.steps = score_trials(trials, names, options);
    return p;
  };
  BoardStabilityOptions options;
  options.resamples = 300;
  const BoardStability s = board_stability({part("external", 0), part("rerun1", 1)}, options);
  ASSERT_EQ(s.parts.size(), 2u);
  const auto& ranks = s.parts[0].ranks;
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(ranks[0].name, "a");
  EXPECT_EQ(ranks[0].low, 1);
  EXPECT_EQ(ranks[0].high, 1);
  EXPECT_EQ(ranks[0].above_next, 1.0);  // a's slowest study beats every other study
  // b (0.30 always) and c (median 0.31 of 0.25, 0.31, 0.36): a resample can put c ahead of b.
  EXPECT_GT(ranks[1].above_next, 0.05);
  EXPECT_LT(ranks[1].above_next, options.level);
  EXPECT_EQ(ranks[1].low, 2);
  EXPECT_EQ(ranks[1].high, 3);
  EXPECT_EQ(ranks[2].above_next, 0.0);
  EXPECT_DOUBLE_EQ(s.parts[0].seconds_steps_spearman, 1.0);  // steps are 1000 x seconds here
  EXPECT_EQ(s.parts[0].changed_rank, 0);
  ASSERT_EQ(s.agreements.size(), 1u);
  EXPECT_EQ(s.agreements[0].second, "rerun1");
  EXPECT_EQ(s.agreements[0].algorithms, 3);
  EXPECT_DOUBLE_EQ(s.agreements[0].spearman, 1.0);
  EXPECT_DOUBLE_EQ(s.agreements[0].kendall, 1.0);
  EXPECT_LT(s.agreements[0].spearman_low, 1.0);  // the runs are resampled independently
  EXPECT_LE(s.agreements[0].spearman_high, 1.0);
  // The same seed gives the same resamples; the tables say which pairs are ties.
  EXPECT_EQ(board_stability_json(board_stability({part("external", 0), part("rerun1", 1)}, options)),
            board_stability_json(s));
  const std::string md = board_stability_markdown(s);
  EXPECT_NE(md.find("| 1 | a | "), std::string::npos) << md;
  EXPECT_NE(md.find("| 1-1 | 100% |"), std::string::npos) << md;
  EXPECT_NE(md.find("(tie)"), std::string::npos) << md;
  EXPECT_NE(md.find("**external against rerun1** (3 algorithms"), std::string::npos) << md;
}

// Verdicts against the reference (docs/scoring.md, "How it will be judged"): an algorithm faster
// in every study is faster in every resample and in a group of its own; one whose studies
// straddle the reference's shares its group; the paces of two identical runs agree (rho = 1).
TEST(BoardStability, VerdictsGiveSpeedupsWithIntervalsAndTheGroupsThePaceSeparates) {
  const std::map<std::string, std::vector<double>> times = {
      {"nadamw", {0.30, 0.31, 0.32}}, {"fast", {0.10, 0.11, 0.12}}, {"close", {0.28, 0.30, 0.34}}};
  std::vector<TrialLog> trials;
  const WorkloadSpec spec = workload_spec("fmnist_mlp");  // accuracy, max
  for (const auto& [name, study_times] : times) {
    for (size_t k = 0; k < study_times.size(); ++k) {
      TrialLog t;
      t.submission = name;
      t.workload = spec.name;
      t.study = static_cast<int>(k + 1);
      t.source = name + "/study_" + std::to_string(k + 1);
      t.rows = 2;
      t.columns["validation/accuracy"] = {0.0, 1.0};  // crossing at t/2 + (t/2) x target
      t.columns["score"] = {study_times[k] / 2, study_times[k]};
      t.columns["global_step"] = {1, 100};
      trials.push_back(t);
    }
  }
  const std::vector<std::string> names = {"nadamw", "fast", "close"};
  auto part = [&](const std::string& name, int rerun) {
    BoardPartScores p;
    p.part = BoardPart{name, Ruleset::external, rerun};
    p.trials = trials;
    p.names = names;
    ScoreOptions options;
    options.reference = "nadamw";
    p.seconds = score_trials(trials, names, options);
    return p;
  };
  BoardStabilityOptions options;
  options.resamples = 300;
  const BoardStability s = board_stability({part("external", 0), part("rerun1", 1)}, options);
  const auto& verdicts = s.parts[0].verdicts;
  ASSERT_EQ(verdicts.size(), 3u);
  EXPECT_EQ(verdicts[0].name, "fast");  // in order of pace
  EXPECT_EQ(verdicts[1].name, "close");
  EXPECT_EQ(verdicts[2].name, "nadamw");
  EXPECT_NEAR(verdicts[0].pace_speedup, 0.31 / 0.11, 1e-9);  // the crossing scales with t
  EXPECT_NEAR(verdicts[0].speedup, 0.31 / 0.11, 1e-9);
  EXPECT_GT(verdicts[0].pace_low, 1.0);
  EXPECT_EQ(verdicts[0].pace_p_faster, 1.0);
  EXPECT_EQ(verdicts[0].p_faster, 1.0);
  EXPECT_LT(verdicts[1].pace_low, 1.0);  // close straddles nadamw
  EXPECT_GT(verdicts[1].pace_high, 1.0);
  EXPECT_GT(verdicts[1].pace_p_faster, 0.05);
  EXPECT_LT(verdicts[1].pace_p_faster, 0.95);
  EXPECT_EQ(verdicts[0].group, 1);
  EXPECT_EQ(verdicts[1].group, 2);
  EXPECT_EQ(verdicts[2].group, 2);
  EXPECT_EQ(s.parts[0].groups, 2);
  ASSERT_EQ(s.agreements.size(), 1u);
  EXPECT_DOUBLE_EQ(s.agreements[0].pace_spearman, 1.0);
  const std::string md = board_stability_markdown(s);
  EXPECT_NE(md.find("Verdicts against nadamw (2 groups separated at 95% by the pace"), std::string::npos) << md;
  EXPECT_NE(md.find("By the pace: Spearman 1.000"), std::string::npos) << md;
}

}  // namespace
}  // namespace pacer
