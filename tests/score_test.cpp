// Scoring: time-to-target (trial, study, workload), performance profiles and score, the held-out
// and 4x rules, the log-tree reader and CSV errors, and `pacer score` end to end on small log
// trees in the reference layout. Every expectation is computed by hand (comments show how).
#include <gtest/gtest.h>
#include <link.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "support/cli_runner.h"
#include "score/eval_csv.h"
#include "score/log_checks.h"
#include "score/log_tree_source.h"
#include "score/pace.h"
#include "score/performance_profile.h"
#include "score/rank_statistics.h"
#include "score/scoring.h"
#include "score/speedup.h"
#include "score/targets.h"
#include "score/time_to_target.h"

namespace {

namespace fs = std::filesystem;
using pacer::ProfileInput;
using pacer::TrialLog;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A step in rho from 0 to 1 at ratio r, with r strictly between grid points tau_j < r < tau_j+1,
// contributes 4 - (tau_j + tau_j+1) / 2 to the area; the grid step is 3/99, so for r = 1.5
// (between tau_16 and tau_17, midpoint 1 + 16.5 * 3/99 = 1.5) the area is 2.5, the score 2.5/3.
double step_score(int j) {
  const double tau_j = 1 + j * 3.0 / 99, tau_next = 1 + (j + 1) * 3.0 / 99;
  return (4 - (tau_j + tau_next) / 2) / 3;
}

ProfileInput profile_input(std::vector<std::string> subs, std::vector<std::string> workloads,
                           std::vector<std::vector<std::optional<double>>> times) {
  ProfileInput in;
  in.submissions = std::move(subs);
  in.workloads = std::move(workloads);
  in.times = std::move(times);
  return in;
}

pacer::ScoringTarget target_max(double value) {
  pacer::ScoringTarget t;
  t.workload = "w";
  t.metric = "accuracy";
  t.higher_is_better = true;
  t.validation_target = value;
  t.time_budget = 100;
  return t;
}

TrialLog trial(std::vector<double> values, std::vector<double> times, int study = 0, int index = 0) {
  TrialLog t;
  t.submission = "s";
  t.workload = "w";
  t.study = study;
  t.trial = index;
  t.source = "mem/study_" + std::to_string(study) + "/trial_" + std::to_string(index) + "/eval_measurements.csv";
  t.rows = values.size();
  t.columns["validation/accuracy"] = values;
  t.columns["score"] = times;
  std::vector<double> steps;
  for (size_t i = 0; i < times.size(); ++i) steps.push_back(100.0 * (i + 1));
  t.columns["global_step"] = steps;
  return t;
}

// ---- rank statistics -----------------------------------------------------------------------

// Expected values from scipy.stats' documentation: spearmanr([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])
// and kendalltau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]) (tau-b; both with ties).
TEST(RankStatistics, SpearmanAndKendallAsScipyWithTies) {
  EXPECT_EQ(pacer::average_ranks({0.5, 0.2, 0.5, 0.9}), (std::vector<double>{2.5, 1, 2.5, 4}));
  EXPECT_NEAR(pacer::spearman_rho({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}), 0.8207826816681233, 1e-12);
  EXPECT_NEAR(pacer::kendall_tau_b({12, 2, 1, 12, 2}, {1, 4, 7, 1, 0}), -0.47140452079103173, 1e-12);
  EXPECT_DOUBLE_EQ(pacer::spearman_rho({3, 2, 1}, {1, 2, 3}), -1.0);
  EXPECT_DOUBLE_EQ(pacer::kendall_tau_b({0.7, 0.6, 0.5}, {0.9, 0.4, 0.1}), 1.0);
  EXPECT_TRUE(std::isnan(pacer::spearman_rho({1, 1, 1}, {1, 2, 3})));  // a constant sample
  EXPECT_TRUE(std::isnan(pacer::kendall_tau_b({1, 2}, {4, 4})));
  EXPECT_THROW(pacer::spearman_rho({1, 2}, {1, 2, 3}), pacer::Error);
}

// ---- time-to-target -------------------------------------------------------------------------

TEST(TimeToTarget, FirstEvalReachingTheTargetInclusive) {
  // >= is the scoring check: 0.8 reaches a target of 0.8 at eval 1.
  const auto t = pacer::trial_time_to_target(trial({0.5, 0.8, 0.9}, {1, 2, 3}), target_max(0.8),
                                             pacer::TimeAxis::seconds);
  EXPECT_EQ(t.eval_index, 1u);
  EXPECT_EQ(t.time, 2.0);
  const auto steps = pacer::trial_time_to_target(trial({0.5, 0.8, 0.9}, {1, 2, 3}), target_max(0.8),
                                                 pacer::TimeAxis::steps);
  EXPECT_EQ(steps.time, 200.0);
}

TEST(TimeToTarget, NaNMetricsNeverReach) {
  auto t = pacer::trial_time_to_target(trial({kNaN, 0.5, kNaN, 0.9}, {1, 2, 3, 4}), target_max(0.8),
                                       pacer::TimeAxis::seconds);
  EXPECT_EQ(t.eval_index, 3u);
  EXPECT_EQ(t.time, 4.0);
  pacer::ScoringTarget loss = target_max(0.3);
  loss.metric = "accuracy";
  loss.higher_is_better = false;  // NaN <= 0.3 is false too
  t = pacer::trial_time_to_target(trial({kNaN, kNaN}, {1, 2}), loss, pacer::TimeAxis::seconds);
  EXPECT_FALSE(t.reached());
  EXPECT_TRUE(std::isinf(t.time));
}

TEST(TimeToTarget, StudyTakesEarliestEvalIndexThenSmallerTime) {
  // Both reach at eval index 2: the smaller time (25) wins.
  TrialLog a = trial({0, 0, 0.9}, {10, 20, 30}, 0, 0), b = trial({0, 0, 0.9}, {8, 16, 25}, 0, 1);
  auto ta = pacer::trial_time_to_target(a, target_max(0.8), pacer::TimeAxis::seconds);
  auto tb = pacer::trial_time_to_target(b, target_max(0.8), pacer::TimeAxis::seconds);
  auto st = pacer::study_time_to_target({&a, &b}, {ta, tb});
  EXPECT_EQ(st.time.time, 25.0);
  EXPECT_EQ(st.trial, &b);
  // An earlier eval index wins even with a larger time (index 1 at 50 s vs index 2 at 20 s).
  TrialLog c = trial({0, 0.9, 0.9}, {40, 50, 60}, 0, 0), d = trial({0, 0, 0.9}, {5, 10, 20}, 0, 1);
  auto tc = pacer::trial_time_to_target(c, target_max(0.8), pacer::TimeAxis::seconds);
  auto td = pacer::trial_time_to_target(d, target_max(0.8), pacer::TimeAxis::seconds);
  EXPECT_EQ(pacer::study_time_to_target({&c, &d}, {tc, td}).time.time, 50.0);
  // None reached: infinite.
  TrialLog e = trial({0.1}, {1});
  auto te = pacer::trial_time_to_target(e, target_max(0.8), pacer::TimeAxis::seconds);
  EXPECT_TRUE(std::isinf(pacer::study_time_to_target({&e}, {te}).time.time));
}

// AlgoPerf's budget (v0.6): an eval past the budget never reaches, on either time axis.
TEST(TimeToTarget, AnEvalPastTheBudgetNeverReaches) {
  const TrialLog t = trial({0.5, 0.7, 0.9}, {40, 90, 110});  // budget 100: the third eval is past it
  EXPECT_FALSE(pacer::trial_time_to_target(t, target_max(0.8), pacer::TimeAxis::seconds, 100).reached());
  EXPECT_FALSE(pacer::trial_time_to_target(t, target_max(0.8), pacer::TimeAxis::steps, 100).reached());
  EXPECT_EQ(pacer::trial_time_to_target(t, target_max(0.8), pacer::TimeAxis::seconds, 0).time, 110.0);  // no cut
  EXPECT_EQ(pacer::trial_time_to_target(t, target_max(0.8), pacer::TimeAxis::seconds, 110).time, 110.0);  // at it: counts
}

// A store-like trial set whose only target-meeting eval lies past the budget: it scores under
// v0.5 (whose runner made that eval and whose published scores count it), not under v0.6.
TEST(TimeToTarget, ScoringCutsAtTheBudgetUnderV06AndNotUnderV05) {
  std::vector<TrialLog> logs;
  for (int study = 0; study < 3; ++study) {
    TrialLog late = trial({0.5, 0.91}, {20, 40.5}, study);  // reaches at 40.5 s of a 39 s budget
    late.submission = "late";
    late.workload = "fmnist_resnet";
    late.columns["validation/accuracy"] = {0.5, 0.91};
    logs.push_back(late);
    TrialLog early = trial({0.5, 0.91}, {20, 30}, study);
    early.submission = "early";
    early.workload = "fmnist_resnet";
    logs.push_back(early);
  }
  pacer::ScoreOptions options;
  const pacer::ScoreResult v06 = pacer::score_trials(logs, {"late", "early"}, options);
  ASSERT_EQ(v06.submissions[0].name, "early");
  EXPECT_FALSE(std::isfinite(*v06.submissions[1].workloads[0].time));
  EXPECT_EQ(v06.submissions[1].score, 0.0);
  options.rules = "v0.5";
  const pacer::ScoreResult v05 = pacer::score_trials(logs, {"late", "early"}, options);
  ASSERT_EQ(v05.submissions[1].name, "late");
  EXPECT_EQ(*v05.submissions[1].workloads[0].time, 40.5);
  EXPECT_GT(v05.submissions[1].score, 0.0);
}

// ---- the pace (score/pace.h), every expectation by hand -------------------------------------

TEST(Pace, ReachedCostsTheInterpolatedCrossingOverTheBudget) {
  pacer::ScoringTarget t = target_max(0.8);  // budget 100 s
  // Crosses 0.8 between (40 s, 0.6) and (60 s, 0.9): 40 + 20 x (0.2 / 0.3) = 53.33 s -> 0.5333.
  EXPECT_NEAR(pacer::trial_pace_cost(trial({0.6, 0.9}, {40, 60}), t, pacer::TimeAxis::seconds, 100, 0.01),
              (40 + 20 * (0.2 / 0.3)) / 100, 1e-12);
  // The first finite eval already reaches: its own time (NaN evals are skipped).
  EXPECT_DOUBLE_EQ(pacer::trial_pace_cost(trial({kNaN, 0.85}, {10, 30}), t, pacer::TimeAxis::seconds, 100, 0.01), 0.3);
  // Steps: the same crossing on global_step (100, 200): 100 + 100 x 2/3, over a budget of 400 steps.
  EXPECT_NEAR(pacer::trial_pace_cost(trial({0.6, 0.9}, {40, 60}), t, pacer::TimeAxis::steps, 400, 0.01),
              (100 + 100 * (0.2 / 0.3)) / 400, 1e-12);
  // A minimized metric: loss 0.5 -> 0.2 across a target of 0.3 between 10 s and 20 s: 16.67 s.
  pacer::ScoringTarget loss = t;
  loss.metric = "loss";
  loss.higher_is_better = false;
  loss.validation_target = 0.3;
  TrialLog l = trial({}, {10, 20});
  l.columns["validation/loss"] = {0.5, 0.2};
  EXPECT_NEAR(pacer::trial_pace_cost(l, loss, pacer::TimeAxis::seconds, 100, 0.01), (10 + 10 * (0.2 / 0.3)) / 100, 1e-12);
}

TEST(Pace, MissedCostsOnePlusTheGapInWidthsCappedAndNothingPastTheBudgetCounts) {
  pacer::ScoringTarget t = target_max(0.8);
  // Best 0.79 within the budget, width 0.04: 1 + 0.01 / 0.04 = 1.25.
  EXPECT_NEAR(pacer::trial_pace_cost(trial({0.7, 0.79, 0.75}, {10, 50, 90}), t, pacer::TimeAxis::seconds, 100, 0.04),
              1.25, 1e-12);
  // The eval at 120 s reaches but is past the budget: not read; the gap is capped at 1.
  EXPECT_DOUBLE_EQ(pacer::trial_pace_cost(trial({0.5, 0.9}, {50, 120}), t, pacer::TimeAxis::seconds, 100, 0.04), 2.0);
  // No finite eval within the budget (diverged): the cap.
  EXPECT_DOUBLE_EQ(pacer::trial_pace_cost(trial({kNaN}, {5}), t, pacer::TimeAxis::seconds, 100, 0.04), 2.0);
  // Continuous at the cliff: reaching exactly at the budget and missing by a hair cost about 1.
  EXPECT_DOUBLE_EQ(pacer::trial_pace_cost(trial({0.5, 0.8}, {50, 100}), t, pacer::TimeAxis::seconds, 100, 0.04), 1.0);
  EXPECT_NEAR(pacer::trial_pace_cost(trial({0.5, 0.7999}, {50, 100}), t, pacer::TimeAxis::seconds, 100, 0.04), 1.0025, 1e-9);
}

TEST(Pace, WidthIsFourSeedSdsElseOnePercentOfTheTarget) {
  pacer::ScoringTarget t = target_max(0.8);
  EXPECT_DOUBLE_EQ(pacer::pace_width(t), 0.008);
  t.seed_sd = 0.002;
  EXPECT_DOUBLE_EQ(pacer::pace_width(t), 0.008);
  t.seed_sd = 0.005;
  EXPECT_DOUBLE_EQ(pacer::pace_width(t), 0.02);
  EXPECT_EQ(pacer::target_seed_sd("fmnist_mlp"), 0.0012);
  EXPECT_FALSE(pacer::target_seed_sd("imagenet_resnet").has_value());
}

// A stored trial that failed before its first eval has no columns at all: it never reaches, in
// every score, and its pace costs the most; a log file without the metric column stays an error.
TEST(Pace, AStoredTrialWithoutEvalsIsAFailedTrialInEveryScore) {
  const std::string path = testing::TempDir() + "/no_evals_targets.json";
  std::ofstream(path) << R"({"w": {"metric": "accuracy", "validation_target": 0.8, "budget": 100, "seed_sd": 0.01}})";
  TrialLog failed;
  failed.submission = "a";
  failed.workload = "w";
  failed.study = 1;
  failed.trial = 2;
  failed.source = "store.db: a/w/study_1/trial_2";
  failed.from_store = true;
  TrialLog reached = trial({0.8}, {50}, 1, 1);
  reached.submission = "a";
  pacer::ScoreOptions options;
  options.targets_file = path;
  const pacer::ScoreResult r = pacer::score_trials({reached, failed}, {"a"}, options);
  ASSERT_EQ(r.submissions[0].workloads[0].trial_costs.size(), 2u);
  EXPECT_NEAR(r.submissions[0].workloads[0].trial_costs[1].cost, 2.0, 1e-12);  // 1 + G
  EXPECT_NEAR(*r.submissions[0].workloads[0].time, 50.0, 1e-12);
  failed.from_store = false;  // the same trial as a CSV without the column: malformed
  EXPECT_THROW(pacer::score_trials({reached, failed}, {"a"}, options), pacer::InputError);
}

// Two submissions, two workloads with known targets, three studies each; costs by hand.
TEST(Pace, StudyMinWorkloadMedianSubmissionGeometricMeanAndSpeedup) {
  pacer::ScoringTarget w1 = target_max(0.8), w2 = target_max(0.8);
  w1.workload = "w1";
  w2.workload = "w2";
  const std::string path = testing::TempDir() + "/pace_targets.json";
  std::ofstream(path) << R"({"w1": {"metric": "accuracy", "validation_target": 0.8, "budget": 100, "seed_sd": 0.01},
                             "w2": {"metric": "accuracy", "validation_target": 0.8, "budget": 10, "seed_sd": 0.01}})";
  std::vector<TrialLog> logs;
  auto add = [&](const std::string& sub, const std::string& w, int study, int index, std::vector<double> v,
                 std::vector<double> times) {
    TrialLog t = trial(std::move(v), std::move(times), study, index);
    t.submission = sub;
    t.workload = w;
    logs.push_back(t);
  };
  // a/w1: study costs 0.2 (reached at 20 s) and 0.5 (min of 0.5 and 1.5), 0.4 -> median 0.4.
  add("a", "w1", 0, 0, {0.8}, {20});
  add("a", "w1", 1, 0, {0.8}, {50});
  add("a", "w1", 1, 1, {0.78}, {50});  // 1 + 0.02/0.04 = 1.5
  add("a", "w1", 2, 0, {0.8}, {40});
  // a/w2: 0.5, 1.25 (best 0.79), 2 (nothing) -> median 1.25.
  add("a", "w2", 0, 0, {0.8}, {5});
  add("a", "w2", 1, 0, {0.79}, {5});
  add("a", "w2", 2, 0, {kNaN}, {5});
  // b/w1: 0.8 each -> 0.8; b/w2: 0.5 each -> 0.5.
  for (int s = 0; s < 3; ++s) add("b", "w1", s, 0, {0.8}, {80}), add("b", "w2", s, 0, {0.8}, {5});
  pacer::ScoreOptions options;
  options.targets_file = path;
  options.reference = "b";
  const pacer::ScoreResult r = pacer::score_trials(logs, {"a", "b"}, options);
  const auto& a = r.submissions[0].name == "a" ? r.submissions[0] : r.submissions[1];
  const auto& b = r.submissions[0].name == "b" ? r.submissions[0] : r.submissions[1];
  ASSERT_EQ(a.workloads[0].study_pace_costs.size(), 3u);
  EXPECT_NEAR(a.workloads[0].study_pace_costs[1], 0.5, 1e-12);
  EXPECT_NEAR(*a.workloads[0].pace_cost, 0.4, 1e-12);
  EXPECT_NEAR(*a.workloads[1].pace_cost, 1.25, 1e-12);
  EXPECT_NEAR(a.pace, std::sqrt(0.4 * 1.25), 1e-12);
  EXPECT_NEAR(b.pace, std::sqrt(0.8 * 0.5), 1e-12);
  EXPECT_EQ(a.pace_rank, 2);
  EXPECT_EQ(b.pace_rank, 1);
  EXPECT_NEAR(*a.pace_speedup, std::sqrt(0.8 * 0.5) / std::sqrt(0.4 * 1.25), 1e-12);
  EXPECT_DOUBLE_EQ(*b.pace_speedup, 1.0);
}

TEST(TimeToTarget, MedianOverStudiesIncludesInfinity) {
  EXPECT_EQ(pacer::median_time({30, 10, 20}), 20.0);
  EXPECT_EQ(pacer::median_time({10, kInf, 20}), 20.0);
  EXPECT_EQ(pacer::median_time({10, 20, 30, kInf}), 25.0);
  EXPECT_TRUE(std::isinf(pacer::median_time({10, kInf})));
  EXPECT_TRUE(std::isinf(pacer::median_time({10, kInf, kInf})));
}

// ---- performance profiles and score ---------------------------------------------------------

TEST(PerformanceProfile, TauGridIsLinspace1To4With100Points) {
  const auto tau = pacer::tau_grid();
  ASSERT_EQ(tau.size(), 100u);
  EXPECT_EQ(tau.front(), 1.0);
  EXPECT_EQ(tau.back(), 4.0);
  EXPECT_DOUBLE_EQ(tau[33], 2.0);
}

TEST(PerformanceProfile, SingleSubmissionScoresOne) {
  auto p = pacer::compute_performance_profiles(profile_input({"a"}, {"w1", "w2"}, {{5.0, 7.0}}));
  ASSERT_EQ(p.score.size(), 1u);
  EXPECT_DOUBLE_EQ(p.score[0], 1.0);
}

TEST(PerformanceProfile, RatioOneAndAHalf) {
  // b takes 150 vs 100: ratio 1.5, score 2.5 / 3.
  auto p = pacer::compute_performance_profiles(profile_input({"a", "b"}, {"w"}, {{100.0}, {150.0}}));
  EXPECT_DOUBLE_EQ(p.score[0], 1.0);
  EXPECT_NEAR(p.score[1], 2.5 / 3, 1e-12);
  EXPECT_NEAR(p.score[1], step_score(16), 1e-12);
  EXPECT_DOUBLE_EQ(p.ratio[1][0], 1.5);
}

TEST(PerformanceProfile, FourTimesCutOff) {
  // 450 > 4 x 100: cut (score 0). 400 is not > 400: kept, ratio 4 counts only at tau = 4, so
  // the area is half the last interval: 0.5 * (4 - tau_98) / 3.
  auto cut = pacer::compute_performance_profiles(profile_input({"a", "b"}, {"w"}, {{100.0}, {450.0}}));
  EXPECT_EQ(cut.score[1], 0.0);
  EXPECT_TRUE(std::isinf(cut.scored[1][0]));
  EXPECT_NE(cut.reason[1][0].find("4 x fastest"), std::string::npos) << cut.reason[1][0];
  auto kept = pacer::compute_performance_profiles(profile_input({"a", "b"}, {"w"}, {{100.0}, {400.0}}));
  const double tau98 = 98 * (3.0 / 99) + 1.0;
  EXPECT_NEAR(kept.score[1], 0.5 * (4 - tau98) / 3, 1e-12);
  EXPECT_TRUE(kept.reason[1][0].empty());
}

TEST(PerformanceProfile, AllInfiniteWorkloadStillCountsInTheDenominator) {
  // w2: nobody reaches. a: w1 fastest -> rho 1/2 everywhere -> 0.5. b: ratio 2.5 on w1
  // (between tau_49 and tau_50, midpoint 2.5) -> 0.5 * (4 - 2.5) / 3 = 0.25.
  auto p = pacer::compute_performance_profiles(
      profile_input({"a", "b"}, {"w1", "w2"}, {{10.0, kInf}, {25.0, kInf}}));
  EXPECT_DOUBLE_EQ(p.score[0], 0.5);
  EXPECT_NEAR(p.score[1], 0.25, 1e-12);
  EXPECT_EQ(p.reason[0][1], "not reached");
}

TEST(PerformanceProfile, MissingWorkloadNeverCounts) {
  auto p = pacer::compute_performance_profiles(
      profile_input({"a", "b"}, {"w1", "w2"}, {{10.0, 10.0}, {10.0, std::nullopt}}));
  EXPECT_DOUBLE_EQ(p.score[0], 1.0);
  EXPECT_DOUBLE_EQ(p.score[1], 0.5);
  EXPECT_NE(p.reason[1][1].find("missing"), std::string::npos);
}

ProfileInput held_out(std::vector<std::vector<std::optional<double>>> times, bool rules_v05) {
  ProfileInput in = profile_input({"a", "b"}, {"w", "w_variant"}, std::move(times));
  in.base_of["w_variant"] = "w";
  in.held_out_variants = rules_v05;
  return in;
}

TEST(PerformanceProfile, HeldOutVariantNotReachedCutsTheBase) {
  auto p = pacer::compute_performance_profiles(held_out({{10.0, 10.0}, {12.0, kInf}}, true));
  EXPECT_EQ(p.base_workloads, std::vector<std::string>{"w"});
  EXPECT_DOUBLE_EQ(p.score[0], 1.0);
  EXPECT_EQ(p.score[1], 0.0);
  EXPECT_NE(p.reason[1][0].find("held-out variant w_variant"), std::string::npos) << p.reason[1][0];
}

TEST(PerformanceProfile, HeldOutVariantOverFourTimesCutsTheBase) {
  // b's variant 50 > 4 x 10: cut at step 2, so b's base (12) is cut at step 3.
  auto p = pacer::compute_performance_profiles(held_out({{10.0, 10.0}, {12.0, 50.0}}, true));
  EXPECT_EQ(p.score[1], 0.0);
  EXPECT_NE(p.reason[1][1].find("4 x fastest"), std::string::npos);
  EXPECT_NE(p.reason[1][0].find("held-out variant"), std::string::npos);
}

TEST(PerformanceProfile, VariantOfAnUnreachedBaseDoesNotSetTheFastestTime) {
  // Step 1 drops b's variant (2) because b's base is inf; otherwise 10 > 4 x 2 would cut a.
  auto p = pacer::compute_performance_profiles(held_out({{10.0, 10.0}, {kInf, 2.0}}, true));
  EXPECT_DOUBLE_EQ(p.score[0], 1.0);
  EXPECT_EQ(p.score[1], 0.0);
  EXPECT_NE(p.reason[1][1].find("base workload w not reached"), std::string::npos) << p.reason[1][1];
}

TEST(PerformanceProfile, WithoutHeldOutRulesVariantsAreNotScored) {
  // v0.6: b's unreached variant is ignored; b's base ratio 12/10 = 1.2 lies between tau_6 and
  // tau_7 (1.2 = 1 + 6.6 * 3/99).
  auto p = pacer::compute_performance_profiles(held_out({{10.0, 10.0}, {12.0, kInf}}, false));
  EXPECT_DOUBLE_EQ(p.score[0], 1.0);
  EXPECT_NEAR(p.score[1], step_score(6), 1e-12);
  EXPECT_NE(p.reason[1][1].find("not scored"), std::string::npos);
}

TEST(Speedup, GeometricMeanWithInfinityAsBudgetPlusOne) {
  // Speedups 10/5 = 2 and (60 + 1)/20 = 3.05: geometric mean sqrt(6.1).
  EXPECT_NEAR(pacer::geometric_mean_speedup({10, kInf}, {5, 20}, {60, 60}), std::sqrt(6.1), 1e-12);
  EXPECT_NEAR(pacer::geometric_mean_speedup({10, 20}, {10, 20}, {60, 60}), 1.0, 1e-12);
}

// ---- targets --------------------------------------------------------------------------------

TEST(Targets, BuiltInReferenceAndPacerWorkloads) {
  auto v05 = pacer::TargetTable::builtin(pacer::rules_preset("v0.5"));
  auto v06 = pacer::TargetTable::builtin(pacer::rules_preset("v0.6"));
  EXPECT_EQ(v05.at("fastmri").time_budget, 8859);
  EXPECT_EQ(v06.at("fastmri").time_budget, 4430);
  EXPECT_EQ(v05.at("wmt_glu_tanh").base_workload, "wmt");
  EXPECT_DOUBLE_EQ(v05.at("wmt_glu_tanh").validation_target, 29.5779);
  EXPECT_FALSE(v05.at("librispeech_conformer").higher_is_better);
  EXPECT_EQ(v05.at("synthetic_regression").metric, "loss");
  EXPECT_FALSE(v05.at("synthetic_regression").higher_is_better);
  EXPECT_EQ(v05.at("fmnist_mlp_tanh").base_workload, "fmnist_mlp");
  EXPECT_THROW(v05.at("no_such_workload"), pacer::InputError);
  EXPECT_TRUE(pacer::metric_higher_is_better("ssim"));
  EXPECT_FALSE(pacer::metric_higher_is_better("ctc_loss"));
}

// ---- CSV and log trees ----------------------------------------------------------------------

TEST(EvalCsv, ParsesNumbersEmptyCellsAndNaN) {
  TrialLog t;
  pacer::parse_eval_csv("global_step,score,validation/accuracy\n1,0.5,\n2,1.0,nan\n3,1.5,0.9\n", "f.csv", t);
  ASSERT_TRUE(t.problem.empty()) << t.problem;
  EXPECT_EQ(t.rows, 3u);
  EXPECT_TRUE(std::isnan((*t.column("validation/accuracy"))[0]));
  EXPECT_TRUE(std::isnan((*t.column("validation/accuracy"))[1]));
  EXPECT_EQ((*t.column("validation/accuracy"))[2], 0.9);
}

TEST(EvalCsv, MalformedFilesNameFileAndLine) {
  TrialLog empty;
  pacer::parse_eval_csv("", "e.csv", empty);
  EXPECT_NE(empty.problem.find("e.csv:1: empty file"), std::string::npos) << empty.problem;
  TrialLog ragged;
  pacer::parse_eval_csv("score,validation/accuracy\n1,0.5\n2\n", "r.csv", ragged);
  EXPECT_NE(ragged.problem.find("r.csv:3:"), std::string::npos) << ragged.problem;
  // A non-numeric cell is an error only in a column scoring reads, reported with its line.
  TrialLog junk;
  pacer::parse_eval_csv("score,validation/accuracy\n1,0.5\n2,abc\n", "j.csv", junk);
  ASSERT_TRUE(junk.problem.empty());
  junk.workload = "w";
  try {
    pacer::trial_time_to_target(junk, target_max(0.8), pacer::TimeAxis::seconds);
    FAIL() << "expected InputError";
  } catch (const pacer::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("j.csv:3: column 'validation/accuracy': 'abc' is not a number"),
              std::string::npos)
        << e.what();
  }
  TrialLog no_metric;
  pacer::parse_eval_csv("score,validation/loss\n1,0.5\n", "m.csv", no_metric);
  no_metric.source = "m.csv";
  EXPECT_THROW(pacer::trial_time_to_target(no_metric, target_max(0.8), pacer::TimeAxis::seconds), pacer::InputError);
}

// ---- impossible and ambiguous times (hardening round 5, item 11) ---------------------------

std::string score_error(std::vector<TrialLog> logs, const std::string& targets_path) {
  pacer::ScoreOptions options;
  options.targets_file = targets_path;
  try {
    pacer::score_trials(logs, {"s"}, options);
  } catch (const pacer::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(LogChecks, ANegativeOrInfiniteTimeOrStepIsRefusedNamingItsLine) {
  const std::string path = testing::TempDir() + "/checks_targets.json";
  std::ofstream(path) << R"({"w": {"metric": "accuracy", "validation_target": 0.8, "budget": 100}})";
  // A negative time at an eval that does not reach: the pace would have interpolated through it.
  TrialLog negative = trial({0.5, 0.9}, {-3, 2});
  EXPECT_FALSE(pacer::check_log_times(negative));
  EXPECT_NE(negative.problem.find("trial_0/eval_measurements.csv:2: 'score' is -3: not a submission time"),
            std::string::npos) << negative.problem;
  EXPECT_EQ(pacer::trial_pace_cost(negative, target_max(0.8), pacer::TimeAxis::seconds, 100, 0.01),
            1.0 + pacer::kPaceMaxGap);
  EXPECT_NE(score_error({trial({0.5, 0.9}, {-3, 2})}, path).find(":2: 'score' is -3"), std::string::npos);
  // An infinite time ended the budget's cut there and dropped the later evals that reach.
  EXPECT_NE(score_error({trial({0.5, 0.6, 0.9}, {1, kInf, 3})}, path).find(":3: 'score' is inf"), std::string::npos);
  TrialLog steps = trial({0.5, 0.9}, {1, 2});
  (*steps.columns.find("global_step")).second[1] = -kInf;
  pacer::check_log_times(steps);
  EXPECT_NE(steps.problem.find(":3: 'global_step' is -inf: not a step count"), std::string::npos) << steps.problem;
  // --lenient: a trial that does not reach, with the culprit in a warning.
  pacer::ScoreOptions lenient;
  lenient.targets_file = path;
  lenient.lenient = true;
  const pacer::ScoreResult r = pacer::score_trials({trial({0.5, 0.9}, {-3, 2})}, {"s"}, lenient);
  EXPECT_FALSE(r.submissions[0].workloads[0].time.has_value() && std::isfinite(*r.submissions[0].workloads[0].time));
  bool named = false;
  for (const auto& w : r.warnings) named |= w.find("'score' is -3") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(LogChecks, ATargetReachedAtTimeZeroIsRefusedAndNeverCutsOthersToZero) {
  const std::string path = testing::TempDir() + "/checks_zero_targets.json";
  std::ofstream(path) << R"({"w": {"metric": "accuracy", "validation_target": 0.8, "budget": 100}})";
  EXPECT_NE(score_error({trial({0.9}, {0})}, path).find("reached at 'score' 0, before any training"),
            std::string::npos);
  // Under --lenient it counts as not reaching: the other submission's real time keeps its score.
  TrialLog zero = trial({0.9}, {0}), real = trial({0.9}, {10});
  zero.submission = "zero";
  real.submission = "real";
  pacer::ScoreOptions lenient;
  lenient.targets_file = path;
  lenient.lenient = true;
  const pacer::ScoreResult r = pacer::score_trials({zero, real}, {"zero", "real"}, lenient);
  for (const auto& sub : r.submissions) {
    if (sub.name == "real") {
      EXPECT_DOUBLE_EQ(sub.score, 1.0);
      EXPECT_NEAR(sub.pace, 0.1, 1e-12);
    } else {
      EXPECT_DOUBLE_EQ(sub.score, 0.0);
      EXPECT_GT(sub.pace, 1.0);
    }
  }
}

TEST(LogChecks, RowsOutOfOrderAndRepeatedEvalsAreScoredInFileOrderWithAWarning) {
  const std::string path = testing::TempDir() + "/checks_order_targets.json";
  std::ofstream(path) << R"({"w": {"metric": "accuracy", "validation_target": 0.8, "budget": 100}})";
  // Time goes back at line 4 (a resumed run's evals logged again): AlgoPerf takes the first row
  // in file order that reaches, here 30 s, and says nothing; Pacer does the same and warns.
  TrialLog resumed = trial({0.5, 0.85, 0.9}, {10, 30, 20});
  const auto warning = pacer::check_log_times(resumed);
  ASSERT_TRUE(warning);
  EXPECT_TRUE(resumed.problem.empty());
  EXPECT_NE(warning->find("eval_measurements.csv:4: 'score' 20 after 30 at line 3"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("scored in file order"), std::string::npos) << *warning;
  pacer::ScoreOptions options;
  options.targets_file = path;
  const pacer::ScoreResult r = pacer::score_trials({trial({0.5, 0.85, 0.9}, {10, 30, 20})}, {"s"}, options);
  EXPECT_DOUBLE_EQ(*r.submissions[0].workloads[0].time, 30.0);
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("'score' 20 after 30") != std::string::npos;
  EXPECT_TRUE(warned);
  // One eval logged twice with other metrics: the first that reaches counts, with a warning.
  TrialLog twice = trial({0.5, 0.9}, {10, 10});
  twice.columns["global_step"] = {100, 100};
  const auto repeated = pacer::check_log_times(twice);
  ASSERT_TRUE(repeated);
  EXPECT_NE(repeated->find(":3: step 100 at 10 s again (first at line 2) with other metrics"), std::string::npos)
      << *repeated;
  // The same eval logged twice alike, and rows in order: nothing to say.
  TrialLog alike = trial({0.5, 0.5}, {10, 10});
  alike.columns["global_step"] = {100, 100};
  EXPECT_FALSE(pacer::check_log_times(alike));
  TrialLog ordered = trial({0.5, 0.9}, {1, 2});
  EXPECT_FALSE(pacer::check_log_times(ordered));
  EXPECT_TRUE(ordered.problem.empty());
}

TEST(EvalCsv, NothingInvalidCountsAsAMeasurement) {
  // A duplicated metric column: which one is read would be arbitrary (it read uninitialized memory).
  TrialLog twice;
  pacer::parse_eval_csv("score,validation/accuracy,validation/accuracy\n1,0.5,0.9\n", "d.csv", twice);
  EXPECT_NE(twice.problem.find("d.csv:1: the column 'validation/accuracy' appears twice"), std::string::npos)
      << twice.problem;
  // -inf is a diverged eval, not one below every loss target; +inf never reaches a max target.
  pacer::ScoringTarget loss = target_max(0.3);
  loss.higher_is_better = false;
  EXPECT_FALSE(pacer::trial_time_to_target(trial({-kInf, 0.5}, {1, 2}), loss, pacer::TimeAxis::seconds).reached());
  EXPECT_FALSE(pacer::trial_time_to_target(trial({kInf}, {1}), target_max(0.8), pacer::TimeAxis::seconds).reached());
  // A negative or infinite time where the target is reached is not a time to target.
  EXPECT_THROW(pacer::trial_time_to_target(trial({0.9}, {-5}), target_max(0.8), pacer::TimeAxis::seconds),
               pacer::InputError);
  EXPECT_THROW(pacer::trial_time_to_target(trial({0.9}, {kInf}), target_max(0.8), pacer::TimeAxis::seconds),
               pacer::InputError);
}

// ---- end to end: log trees in the reference layout ------------------------------------------

using pacer::testing::CliResult;
using pacer::testing::read_file;

class ScoreCliTest : public pacer::testing::CliFixture {
 protected:
  // One trial's CSV: three evals at time t/3, 2t/3, t (steps 10x the seconds); the metric
  // reaches `target` exactly at the last eval when t is finite, never otherwise.
  void write_trial(const std::string& submission, int study, const std::string& folder, const std::string& metric,
                   double target, bool higher, double t) const {
    const fs::path path = fs::path(dir_) / submission / ("study_" + std::to_string(study)) / folder / "trial_0";
    fs::create_directories(path);
    std::ofstream csv(path / "eval_measurements.csv");
    csv << "accumulated_submission_time,global_step,score,validation/" << metric << "\n";
    const double total = std::isfinite(t) ? t : 900.0;
    for (int i = 1; i <= 3; ++i) {
      const double time = total * i / 3;
      const double far = higher ? target * 0.5 : target * 2;
      const double value = (i == 3 && std::isfinite(t)) ? target : far;
      csv << time << "," << time * 10 << "," << time << "," << value << "\n";
    }
  }

  // Submission a: wmt 100/110/120 (median 110), variant 50, ogbg 200.
  // Submission b: wmt 150/165/inf (median 165), variant never, ogbg 300 (ratio 1.5).
  void write_reference_tree() const {
    const std::vector<double> a_wmt = {100, 110, 120}, b_wmt = {150, 165, kInf};
    for (int k = 0; k < 3; ++k) {
      write_trial("a", k, "wmt_jax", "bleu", 30.8491, true, a_wmt[k]);
      write_trial("a", k, "wmt_glu_tanh_jax", "bleu", 29.5779, true, 50);
      write_trial("a", k, "ogbg_pytorch", "mean_average_precision", 0.28098, true, 200);
      write_trial("b", k, "wmt_jax", "bleu", 30.8491, true, b_wmt[k]);
      write_trial("b", k, "wmt_glu_tanh_jax", "bleu", 29.5779, true, kInf);
      write_trial("b", k, "ogbg_pytorch", "mean_average_precision", 0.28098, true, 300);
    }
  }

  nlohmann::json scores(const std::string& out) const { return nlohmann::json::parse(read_file(out + "/scores.json")); }

};

const nlohmann::json& submission(const nlohmann::json& scores, const std::string& name) {
  for (const auto& s : scores["submissions"]) {
    if (s["name"] == name) return s;
  }
  throw std::runtime_error("no submission " + name);
}

TEST_F(ScoreCliTest, ReferenceLayoutV05HeldOutVariantCutsTheBase) {
  write_reference_tree();
  const std::string out = dir_ + "/board";
  auto r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --reference a --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("rules: v0.5"), std::string::npos) << r.out;
  // 3 studies where v0.5 expects 5: a warning, not an error.
  EXPECT_NE(r.err.find("rules v0.5 expect 5"), std::string::npos) << r.err;
  const auto j = scores(out);
  EXPECT_EQ(j["base_workloads"], nlohmann::json({"ogbg", "wmt"}));
  const auto& a = submission(j, "a");
  const auto& b = submission(j, "b");
  EXPECT_EQ(a["rank"], 1);
  EXPECT_DOUBLE_EQ(a["score"].get<double>(), 1.0);
  // b: wmt cut by its variant; ogbg at ratio 1.5 -> rho 1/2 from tau 1.5 -> 0.5 * 2.5 / 3.
  EXPECT_NEAR(b["score"].get<double>(), 1.25 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(b["workloads"]["wmt"]["time"].get<double>(), 165.0);
  EXPECT_FALSE(b["workloads"]["wmt"]["counted"].get<bool>());
  EXPECT_NE(b["workloads"]["wmt"]["reason"].get<std::string>().find("wmt_glu_tanh"), std::string::npos);
  EXPECT_DOUBLE_EQ(b["workloads"]["ogbg"]["ratio"].get<double>(), 1.5);
  // Speedup vs a: wmt 110/165, ogbg 200/300 -> geometric mean 2/3 (times before cut-offs).
  EXPECT_NEAR(b["speedup"].get<double>(), 2.0 / 3, 1e-12);
  for (const char* file : {"time_to_targets.csv", "performance_profiles.svg", "curves/wmt.svg", "curves/ogbg.svg",
                           "curves/wmt_glu_tanh.svg"}) {
    EXPECT_TRUE(fs::exists(out + "/" + file)) << file;
  }
  const std::string csv = read_file(out + "/time_to_targets.csv");
  EXPECT_NE(csv.find("b,wmt,bleu,max,30.8491,3,3,165,150;165;inf,inf,inf,0,"), std::string::npos) << csv;
}

// A test of the torch-free layers links only those (tests/CMakeLists.txt): its processes (one per
// CLI test case under CTest) start without loading LibTorch's libraries.
TEST(LightTestExecutable, ThisProcessLoadedNoLibTorch) {
  std::vector<std::string> loaded;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* names) {
        static_cast<std::vector<std::string>*>(names)->push_back(info->dlpi_name ? info->dlpi_name : "");
        return 0;
      },
      &loaded);
  EXPECT_GT(loaded.size(), 2u);  // the executable, libc, ...: the walk saw the libraries
  for (const std::string& library : loaded)
    for (const char* torch : {"libtorch", "libc10"}) EXPECT_EQ(library.find(torch), std::string::npos) << library;
}

// The light pacer (apps/pacer/main.cpp) links no LibTorch: scoring AlgoPerf's logs, listing and
// reading stores run without the training program; a command that trains is handed to it.
TEST_F(ScoreCliTest, TheLightPacerScoresAlgoPerfLogsWithoutLibTorchAndHandsTrainingOn) {
  const std::string ldd = dir_ + "/ldd.txt";
  ASSERT_EQ(std::system(("ldd '" + std::string(PACER_BINARY) + "' > '" + ldd + "' 2>&1").c_str()), 0);
  const std::string libraries = read_file(ldd);
  EXPECT_NE(libraries.find("libc.so"), std::string::npos) << libraries;
  for (const char* torch : {"libtorch", "libc10", "libgomp"}) EXPECT_EQ(libraries.find(torch), std::string::npos) << libraries;

  write_reference_tree();
  ASSERT_EQ(::setenv("PACER_TRAINING_PROGRAM", "/nonexistent/pacer-train", 1), 0);
  const CliResult scored = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --reference a --out '" + dir_ + "/board'");
  const CliResult listed = pacer("list algorithms --json");
  const CliResult trained = pacer("run -w synthetic_regression -a sgd --max-steps 2 --out '" + dir_ + "/run'");
  const CliResult plugin = pacer("list -a ./libnothing.so");
  // run's arguments are checked by the light program (bad input: exit 2 without the training
  // program); a submission's trial, which it would wait for in a contained copy, is handed on.
  const CliResult bad = pacer("run -w synthetic_regression -a sgd --budget nan");
  { std::ofstream(dir_ + "/submission.py") << "# never loaded\n"; }
  const CliResult contained = pacer("run -w synthetic_regression -a '" + dir_ + "/submission.py' --max-steps 2");
  ::unsetenv("PACER_TRAINING_PROGRAM");
  ASSERT_EQ(scored.code, 0) << scored.err;
  EXPECT_NEAR(submission(scores(dir_ + "/board"), "b")["score"].get<double>(), 1.25 / 3, 1e-12);
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out)["algorithms"].size(), 15u);
  EXPECT_EQ(trained.code, 1);
  EXPECT_NE(trained.err.find("cannot start the training program /nonexistent/pacer-train for 'pacer run'"),
            std::string::npos) << trained.err;
  EXPECT_FALSE(fs::exists(dir_ + "/run"));
  EXPECT_EQ(plugin.code, 1);  // a plugin is loaded by the training program
  EXPECT_NE(plugin.err.find("for 'pacer list' ('./libnothing.so' is loaded by the training program)"),
            std::string::npos) << plugin.err;  // the light command's why, named
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "pacer: error: --budget: 'nan' is not a finite number\n");
  EXPECT_EQ(contained.code, 1);
  EXPECT_NE(contained.err.find("cannot start the training program /nonexistent/pacer-train for 'pacer run'"),
            std::string::npos) << contained.err;
}

TEST_F(ScoreCliTest, StrayTrialFoldersWithoutAWorkloadAreSkippedWithOneWarning) {
  // As in the published AlgoPerf v0.5 tree: study_k/trial_j folders outside any workload folder.
  write_reference_tree();
  const std::string clean = dir_ + "/clean";
  ASSERT_EQ(pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --out '" + clean + "'").code, 0);
  for (int k = 0; k < 2; ++k) {
    const fs::path stray = fs::path(dir_) / "a" / ("study_" + std::to_string(k)) / "trial_7";
    fs::create_directories(stray);
    std::ofstream(stray / "eval_measurements.csv") << "global_step,score,validation/bleu\n1,1,99\n";
  }
  const std::string out = dir_ + "/board";
  const auto r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("skipped 2 eval_measurements.csv without a workload"), std::string::npos) << r.err;
  EXPECT_EQ(scores(out)["submissions"], scores(clean)["submissions"]);  // as if they were not there
}

TEST_F(ScoreCliTest, LogsOfUndrawnVariantsAreSkippedWithOneWarningEach) {
  // As in the published v0.5 tree: logs of a variant that was not drawn as held-out (no target).
  write_reference_tree();
  const std::string clean = dir_ + "/clean";
  ASSERT_EQ(pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --out '" + clean + "'").code, 0);
  for (int k = 0; k < 3; ++k) write_trial("a", k, "ogbg_gelu_jax", "mean_average_precision", 0.28, true, 10);
  const std::string out = dir_ + "/board";
  const auto r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("3 trial logs of 'ogbg_gelu' skipped: a v0.5 variant not drawn as a held-out workload"),
            std::string::npos) << r.err;
  EXPECT_EQ(scores(out)["submissions"], scores(clean)["submissions"]);
  // A variant no targets file knows is skipped as well; finewebedu_lm is not a v0.5 workload.
  write_trial("a", 0, "ogbg_newvariant_jax", "mean_average_precision", 0.28, true, 10);
  write_trial("b", 0, "finewebedu_lm_jax", "ppl", 22.2995, false, 10);
  const auto more = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --out '" + out + "2'");
  ASSERT_EQ(more.code, 0) << more.err;
  EXPECT_NE(more.err.find("1 trial logs of 'ogbg_newvariant' skipped: a variant without a target"), std::string::npos);
  EXPECT_NE(more.err.find("1 trial logs of 'finewebedu_lm' skipped: not a workload of the v0.5 benchmark"),
            std::string::npos) << more.err;
  EXPECT_EQ(scores(out + "2")["submissions"], scores(clean)["submissions"]);
  // A workload that is nobody's variant is still an error naming it.
  write_trial("a", 0, "mystery_jax", "accuracy", 0.5, true, 10);
  const auto bad = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("mystery"), std::string::npos) << bad.err;
}

TEST_F(ScoreCliTest, ReferenceTargetsFileFormatIsReadAndItsListsDecideWhatIsScored) {
  // The frozen targets file of mlcommons/submissions_algorithms scoring/ (workload_targets_v05.json),
  // cut down: two bases, one drawn held-out variant, one variant that was not drawn.
  write_reference_tree();
  for (int k = 0; k < 3; ++k) write_trial("a", k, "ogbg_gelu_jax", "mean_average_precision", 0.27771, true, 10);
  const std::string clean = dir_ + "/clean";
  ASSERT_EQ(pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --out '" + clean + "'").code, 0);
  auto entry = [](const char* metric, const char* goal, double target) {
    return nlohmann::json{{"target_metric_name", metric}, {"target_metric_goal", goal},
                          {"validation_target_value", target}, {"step_hint", 1000}};
  };
  nlohmann::json file = {{"_comment", "frozen targets"},
                         {"benchmark_version", "0.5"},
                         {"base_workloads", {"ogbg", "wmt"}},
                         {"held_out_workloads", {"wmt_glu_tanh"}},
                         {"workloads",
                          {{"wmt", entry("bleu", "maximize", 30.8491)},
                           {"wmt_glu_tanh", entry("bleu", "maximize", 29.5779)},
                           {"ogbg", entry("mean_average_precision", "maximize", 0.28098)},
                           {"ogbg_gelu", entry("mean_average_precision", "maximize", 0.27771)}}}};
  const std::string targets = dir_ + "/workload_targets_v05.json";
  std::ofstream(targets) << file.dump(2);
  const std::string out = dir_ + "/board";
  auto r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --targets '" + targets + "' --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("3 trial logs of 'ogbg_gelu' skipped: not among the base or held-out workloads"),
            std::string::npos) << r.err;
  EXPECT_EQ(scores(out)["submissions"], scores(clean)["submissions"]);  // same targets, same scores

  // A harder wmt target in the file changes the result: nobody reaches 31 bleu.
  file["workloads"]["wmt"]["validation_target_value"] = 31.0;
  std::ofstream(targets) << file.dump(2);
  r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules v0.5 --targets '" + targets + "' --out '" + out +
            "2'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(submission(scores(out + "2"), "a")["workloads"]["wmt"]["time"].is_number());

  // Contradictions are input errors naming the file: the version against --rules, a listed
  // workload without an entry, a goal that is not one.
  auto refused = [&](const nlohmann::json& bad, const std::string& rules, const std::string& expected) {
    std::ofstream(targets) << bad.dump();
    const auto e = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --rules " + rules + " --targets '" + targets + "'");
    EXPECT_EQ(e.code, 2) << bad.dump();
    EXPECT_NE(e.err.find(expected), std::string::npos) << e.err;
    EXPECT_NE(e.err.find("workload_targets_v05.json"), std::string::npos) << e.err;
  };
  refused(file, "v0.6", "benchmark version 0.5, but the rules are v0.6: add --rules v0.5");
  nlohmann::json missing = file;
  missing["held_out_workloads"] = {"ogbg_model_size"};
  refused(missing, "v0.5", "'ogbg_model_size' is listed but has no entry");
  nlohmann::json goal = file;
  goal["workloads"]["ogbg"]["target_metric_goal"] = "up";
  refused(goal, "v0.5", "\"target_metric_goal\" must be \"maximize\" or \"minimize\"");
}

TEST(BuiltinTargets, CoverEveryWorkloadOfTheReferenceTargetsFiles) {
  // Every entry of workload_targets_v05.json / workload_targets.json (submissions_algorithms scoring/).
  const auto v05 = pacer::TargetTable::builtin(pacer::rules_preset("v0.5"));
  const auto v06 = pacer::TargetTable::builtin(pacer::rules_preset("v0.6"));
  for (const char* name :
       {"cifar", "criteo1tb", "criteo1tb_test", "criteo1tb_layernorm", "criteo1tb_embed_init", "criteo1tb_resnet",
        "fastmri", "fastmri_model_size", "fastmri_tanh", "fastmri_layernorm", "imagenet_resnet",
        "imagenet_resnet_silu", "imagenet_resnet_gelu", "imagenet_resnet_large_bn_init", "imagenet_vit",
        "imagenet_vit_glu", "imagenet_vit_post_ln", "imagenet_vit_map", "librispeech_conformer",
        "librispeech_conformer_attention_temperature", "librispeech_conformer_layernorm",
        "librispeech_conformer_gelu", "librispeech_deepspeech", "librispeech_deepspeech_tanh",
        "librispeech_deepspeech_no_resnet", "librispeech_deepspeech_norm_and_spec_aug", "finewebedu_lm", "mnist",
        "ogbg", "ogbg_gelu", "ogbg_silu", "ogbg_model_size", "wmt", "wmt_post_ln", "wmt_attention_temp",
        "wmt_glu_tanh"}) {
    ASSERT_NE(v05.find(name), nullptr) << name;
    EXPECT_GT(v06.at(name).time_budget, 0) << name;
  }
  EXPECT_DOUBLE_EQ(v06.at("finewebedu_lm").validation_target, 22.2995);
  EXPECT_FALSE(v06.at("finewebedu_lm").higher_is_better);
  EXPECT_DOUBLE_EQ(v06.at("finewebedu_lm").time_budget, 31967);
  EXPECT_TRUE(v06.at("finewebedu_lm").out_of_rules.empty());
  EXPECT_FALSE(v05.at("finewebedu_lm").out_of_rules.empty());
  EXPECT_EQ(v05.at("imagenet_vit_map").base_workload, "imagenet_vit");
  EXPECT_FALSE(v05.at("imagenet_vit_map").out_of_rules.empty());   // not drawn in v0.5
  EXPECT_TRUE(v05.at("imagenet_resnet_large_bn_init").out_of_rules.empty());  // drawn
  EXPECT_DOUBLE_EQ(v05.at("librispeech_deepspeech_tanh").validation_target, 0.150883);
}

TEST_F(ScoreCliTest, SameTreeUnderV06IgnoresVariantsAndStepsGiveTheSameRatios) {
  write_reference_tree();
  auto r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --out '" + dir_ + "/v06'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("rules: v0.6"), std::string::npos);
  auto j = scores(dir_ + "/v06");
  // b: wmt 165/110 = 1.5 and ogbg 1.5 -> score 2.5 / 3.
  EXPECT_NEAR(submission(j, "b")["score"].get<double>(), 2.5 / 3, 1e-12);
  EXPECT_NE(submission(j, "b")["workloads"]["wmt_glu_tanh"]["reason"].get<std::string>().find("not scored"),
            std::string::npos);
  r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --time steps --out '" + dir_ + "/steps'");
  ASSERT_EQ(r.code, 0) << r.err;
  j = scores(dir_ + "/steps");
  EXPECT_EQ(j["time_axis"], "steps");
  EXPECT_DOUBLE_EQ(submission(j, "b")["workloads"]["wmt"]["time"].get<double>(), 1650.0);
  EXPECT_NEAR(submission(j, "b")["score"].get<double>(), 2.5 / 3, 1e-12);
}

TEST_F(ScoreCliTest, PacerRunFolderWithMetaDataAndTargetsOverride) {
  // A `pacer run --out` folder: the CSV directly inside, the workload from meta_data_0.json.
  fs::create_directories(dir_ + "/solo/run1");
  std::ofstream(dir_ + "/solo/run1/meta_data_0.json") << R"({"workload.name": "my_task"})";
  std::ofstream(dir_ + "/solo/run1/eval_measurements.csv") << "global_step,score,validation/error_rate\n"
                                                              "10,1.5,0.4\n20,3.0,0.1\n";
  auto r = pacer("score '" + dir_ + "/solo'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no target known for workload 'my_task'"), std::string::npos) << r.err;
  std::ofstream(dir_ + "/targets.json") << R"({"my_task": {"metric": "error_rate", "validation_target": 0.2, "budget": 10}})";
  r = pacer("score '" + dir_ + "/solo' --targets '" + dir_ + "/targets.json' --out '" + dir_ + "/o'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = scores(dir_ + "/o");
  // A single submission scores 1; error_rate is lower-is-better, reached at the second eval (3 s).
  EXPECT_DOUBLE_EQ(submission(j, "solo")["score"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(submission(j, "solo")["workloads"]["my_task"]["time"].get<double>(), 3.0);
}

TEST_F(ScoreCliTest, MalformedCsvIsAnErrorOrWithLenientANotReachedTrial) {
  write_trial("a", 0, "ogbg_jax", "mean_average_precision", 0.28098, true, 30);
  write_trial("b", 0, "ogbg_jax", "mean_average_precision", 0.28098, true, 60);
  const std::string bad = dir_ + "/b/study_1/ogbg_jax/trial_0";
  fs::create_directories(bad);
  std::ofstream(bad + "/eval_measurements.csv") << "score,validation/mean_average_precision\n1,0.1\n2,oops\n";
  auto r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(bad + "/eval_measurements.csv:3: column 'validation/mean_average_precision': 'oops'"),
            std::string::npos)
      << r.err;
  r = pacer("score '" + dir_ + "/a' '" + dir_ + "/b' --lenient --out '" + dir_ + "/o'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--lenient: counted as not reaching the target"), std::string::npos) << r.err;
  // b: studies {60, inf} -> median inf: not reached, score 0.
  const auto j = scores(dir_ + "/o");
  EXPECT_EQ(submission(j, "b")["score"].get<double>(), 0.0);
  EXPECT_TRUE(submission(j, "b")["workloads"]["ogbg"]["time"].is_null());
  // Empty file, and a missing metric column: errors naming the file and line 1.
  std::ofstream(bad + "/eval_measurements.csv") << "";
  r = pacer("score '" + dir_ + "/b'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("eval_measurements.csv:1: empty file"), std::string::npos) << r.err;
  std::ofstream(bad + "/eval_measurements.csv") << "score,validation/loss\n1,0.5\n";
  r = pacer("score '" + dir_ + "/b'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(":1: missing column 'validation/mean_average_precision'"), std::string::npos) << r.err;
}

TEST_F(ScoreCliTest, UsageErrors) {
  write_trial("a", 0, "ogbg_jax", "mean_average_precision", 0.28098, true, 30);
  EXPECT_EQ(pacer("score '" + dir_ + "/nowhere'").code, 2);
  EXPECT_EQ(pacer("score '" + dir_ + "/a' --rules v9").code, 2);
  auto r = pacer("score '" + dir_ + "/a' --reference zzz");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--reference 'zzz'"), std::string::npos) << r.err;
}

}  // namespace
