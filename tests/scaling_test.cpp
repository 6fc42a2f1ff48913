// Batch-size scaling: steps-to-result semantics, efficiencies and regimes, the S_min/B_crit fit
// and its bootstrap, the gradient-noise-scale estimator on gradients with known statistics, the
// `pacer scale` use-case in process (plan_scale: batch sizes, budget, goal, series, refusals), and
// an end-to-end `pacer scale` study on the synthetic workload.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "catalog/training_goal.h"
#include "catalog/workload_specs.h"
#include "core/error.h"
#include "scale/geometric_eval_steps.h"
#include "scale/scale_experiment.h"
#include "scale/scale_request.h"
#include "scale/scaling_analysis.h"
#include "scale/steps_to_result.h"
#include "support/cli_runner.h"
#include "support/input_error.h"
#include "train/noise_scale.h"
#include "workloads/training_set_size.h"

namespace pacer {
namespace {

// The naming rule of scaling experiments, written by `pacer scale` and read by the analysis.
TEST(ScaleExperimentNames, SeriesAndBatchSizeRoundTrip) {
  EXPECT_EQ(scale_series_name("", "nadamw", "", false), "nadamw");
  EXPECT_EQ(scale_series_name("run2", "sgd", "mean", true), "run2-sgd+mean");  // only Adasum has a delta mode
  const std::string series = scale_series_name("", "momentum", "adasum", true);
  EXPECT_EQ(series, "momentum+adasum-delta");
  EXPECT_EQ(scale_experiment_name(series, 256), "momentum+adasum-delta@b256");
  EXPECT_EQ(scale_series_of(scale_experiment_name(series, 256)), series);
  EXPECT_EQ(scale_series_of("plain"), "plain");
}

ScalingTrial trial(int64_t id, std::vector<std::pair<int64_t, double>> evals, bool diverged = false) {
  return {id, diverged, std::move(evals)};
}

TEST(StepsToResultTest, StrictlyBetterFirstHitSmallestStepTiesToSmallerTrialId) {
  const std::vector<ScalingTrial> trials = {
      trial(7, {{100, 0.80}, {200, 0.90}, {300, 0.95}}),  // 0.90 is not strictly better than 0.90
      trial(3, {{100, 0.85}, {200, 0.91}}),               // hits at 200
      trial(5, {{100, 0.70}, {200, 0.92}}),               // hits at 200 too: tie -> trial 3
      trial(1, {{100, 0.99}}, /*diverged=*/true),         // diverged trials never count
  };
  const auto r = steps_to_result(trials, 0.90, true);
  ASSERT_TRUE(r.steps);
  EXPECT_EQ(*r.steps, 200);
  EXPECT_EQ(*r.trial_id, 3);
  EXPECT_EQ(r.trials, 4);
  EXPECT_EQ(r.diverged, 1);
  EXPECT_EQ(r.reached, 3);
  // Lower is better: strictly below.
  const auto loss = steps_to_result({trial(1, {{10, 0.5}, {20, 0.3}, {30, 0.29}})}, 0.3, false);
  EXPECT_EQ(*loss.steps, 30);
  const auto never = steps_to_result({trial(1, {{10, 0.5}}), trial(2, {{10, NAN}})}, 0.3, false);
  EXPECT_FALSE(never.steps);
  EXPECT_EQ(never.reached, 0);
}

TEST(ScalingAnalysisTest, EfficienciesAndRegimes) {
  // Halving, halving, 25% fewer, equal; one batch size never reaches.
  const auto points = analyze_scaling({{32, 1600}, {64, 800}, {128, 400}, {256, 300}, {512, 300}, {1024, std::nullopt}});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_FALSE(points[0].efficiency);
  EXPECT_EQ(points[0].regime, ScalingRegime::perfect);  // inherits the first step's label
  EXPECT_NEAR(*points[1].efficiency, 1.0, 1e-12);
  EXPECT_EQ(points[2].regime, ScalingRegime::perfect);
  EXPECT_NEAR(*points[3].efficiency, std::log(400.0 / 300.0) / std::log(2.0), 1e-12);
  EXPECT_EQ(points[3].regime, ScalingRegime::diminishing);
  EXPECT_NEAR(*points[4].efficiency, 0.0, 1e-12);
  EXPECT_EQ(points[4].regime, ScalingRegime::maximal);
  EXPECT_FALSE(points[5].efficiency);
  EXPECT_EQ(points[5].regime, ScalingRegime::unknown);
  // Thresholds are parameters.
  const auto strict = analyze_scaling({{1, 100}, {2, 60}}, {0.9, 0.5});
  EXPECT_EQ(strict[1].regime, ScalingRegime::diminishing);
}

TEST(ScalingAnalysisTest, FitRecoversSminAndBcritFromAnExactCurve) {
  std::vector<std::pair<double, double>> pts;
  for (double b = 8; b <= 8192; b *= 2) pts.emplace_back(b, 120.0 * (1.0 + 300.0 / b));
  const auto fit = fit_critical_batch(pts);
  EXPECT_NEAR(fit.s_min, 120.0, 0.5);
  EXPECT_NEAR(fit.b_crit, 300.0, 1.5);
  EXPECT_LT(fit.rms_log_error, 1e-4);
  EXPECT_EQ(fit_critical_batch({{8, 100}}).points, 1);
}

TEST(ScalingAnalysisTest, BootstrapIntervalCoversTheTrueValueOnNoisyTrials) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> noise(0.0, 0.15);
  std::map<int64_t, std::vector<ScalingTrial>> by_batch;
  int64_t id = 0;
  for (int64_t b = 16; b <= 4096; b *= 2) {
    for (int t = 0; t < 6; ++t) {
      // Each trial reaches the goal (0.5 on a loss falling linearly to 0) at S(B) x noise steps.
      const double s = 200.0 * (1.0 + 256.0 / static_cast<double>(b)) * noise(rng);
      by_batch[b].push_back(trial(++id, {{static_cast<int64_t>(s), 0.4}}));
    }
  }
  const auto interval = bootstrap_critical_batch(by_batch, 0.5, false, 300, 1);
  ASSERT_TRUE(interval);
  EXPECT_GT(interval->resamples, 250);
  EXPECT_LT(interval->b_crit_low, interval->b_crit_high);
  EXPECT_LT(interval->b_crit_low, 256.0 * 1.3);
  EXPECT_GT(interval->b_crit_high, 256.0 / 1.3);
  EXPECT_LT(interval->b_crit_low, interval->fit.b_crit);
  EXPECT_GT(interval->b_crit_high, interval->fit.b_crit);
  // Two reached batch sizes determine S_min and B_crit exactly: no fit is reported.
  std::map<int64_t, std::vector<ScalingTrial>> two = {{16, by_batch[16]}, {32, by_batch[32]}, {64, {trial(999, {{10, 0.9}})}}};
  EXPECT_FALSE(bootstrap_critical_batch(two, 0.5, false, 50, 1));
}

TEST(EvalScheduleTest, GeometricStepsEndAtTheBudgetWithConstantRelativeSpacing) {
  const std::vector<int64_t> steps = geometric_eval_steps(4000, 60);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front(), 1);
  EXPECT_EQ(steps.back(), 4000);
  EXPECT_LE(steps.size(), 60u);
  EXPECT_GT(steps.size(), 45u);  // only the smallest steps merge when rounded
  for (size_t i = 1; i < steps.size(); ++i) {
    EXPECT_GT(steps[i], steps[i - 1]);
    // Past the first few, consecutive evals differ by about 4000^(1/60) = 1.148.
    if (steps[i - 1] >= 50) {
      EXPECT_NEAR(static_cast<double>(steps[i]) / static_cast<double>(steps[i - 1]), 1.148, 0.03) << steps[i];
    }
  }
  EXPECT_EQ(geometric_eval_steps(1, 10), std::vector<int64_t>{1});
  EXPECT_EQ(geometric_eval_steps(100, 1), std::vector<int64_t>{100});
  EXPECT_THROW(geometric_eval_steps(0, 10), InputError);
  EXPECT_THROW(geometric_eval_steps(100, 0), InputError);
}

using testing::input_error_of;

TEST(ScaleRequestTest, BatchSizesAreARangeOfPowersOfTwoOrASortedList) {
  EXPECT_EQ(parse_batch_sizes("16:128"), (std::vector<int64_t>{16, 32, 64, 128}));
  EXPECT_EQ(parse_batch_sizes("20:100"), (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(parse_batch_sizes("1000,32,100,32,"), (std::vector<int64_t>{32, 100, 1000}));
  EXPECT_NE(input_error_of([] { parse_batch_sizes("64:16"); }).find("lower bound is above"), std::string::npos);
  EXPECT_NE(input_error_of([] { parse_batch_sizes("33:63"); }).find("no power of two"), std::string::npos);
  EXPECT_NE(input_error_of([] { parse_batch_sizes("16,x"); }).find("'x' is not a positive integer"), std::string::npos);
  EXPECT_NE(input_error_of([] { parse_batch_sizes("0,16"); }).find("'0'"), std::string::npos);
  EXPECT_NE(input_error_of([] { parse_batch_sizes(","); }).find("no batch size"), std::string::npos);
}

ScaleRequest synthetic_scale_request() {
  ScaleRequest r;
  r.workload = "synthetic_regression";
  r.algorithms = {"sgd"};
  r.spaces = {std::string(PACER_SOURCE_DIR) + "/spaces/sgd.json"};
  r.batch_sizes = "16,64";
  r.max_steps = 200;
  r.evals = 10;
  return r;
}

TEST(ScaleRequestTest, OneSingleStudySweepPerSeriesAndBatchSizeWithTheGoalAndTheStepBudget) {
  ScaleRequest r = synthetic_scale_request();
  ScalePlan plan = plan_scale(r, training_set_size);
  EXPECT_EQ(plan.goal.metric, "validation/loss");  // the workload's target metric and value
  EXPECT_FALSE(plan.goal.higher_is_better);
  EXPECT_EQ(plan.budget, 200);
  ASSERT_EQ(plan.sweeps.size(), 2u);
  for (const SweepSpec& s : plan.sweeps) {
    EXPECT_EQ(s.studies, 1);
    EXPECT_EQ(s.trials, 8);
    EXPECT_EQ(s.trial.max_steps, 200);
    EXPECT_EQ(s.trial.eval_every_steps, 20);
    EXPECT_FALSE(s.trial.stop_at_targets);
    ASSERT_TRUE(s.trial.goal.has_value());
    EXPECT_EQ(s.trial.goal->metric, "validation/loss");
    EXPECT_EQ(s.trial.eval_splits, std::vector<EvalSplit>{EvalSplit::validation});  // the goal's split only
  }
  EXPECT_EQ(plan.sweeps[0].experiment, "sgd@b16");
  EXPECT_EQ(*plan.sweeps[1].trial.batch_size, 64);
  EXPECT_EQ(plan.headline(r).rfind("pacer scale: synthetic_regression, 1 algorithm(s) x 2 batch sizes x 8 trials, 200 steps", 0), 0u)
      << plan.headline(r);

  // An epoch budget counts at the smallest batch size (8192 examples / 16 = 512 steps per epoch);
  // log spacing; a goal of one's own; combiners as series.
  r.max_steps = 0;
  r.epochs = 0.5;
  r.eval_spacing = "log";
  r.metric = "loss";
  r.goal = 0.5;
  r.combines = {"mean", "adasum"};
  r.virtual_workers = 2;
  r.adasum_mode = "delta";
  plan = plan_scale(r, training_set_size);
  EXPECT_EQ(plan.budget, 256);
  EXPECT_DOUBLE_EQ(plan.goal.value, 0.5);
  ASSERT_EQ(plan.sweeps.size(), 4u);
  EXPECT_EQ(plan.sweeps[0].experiment, "sgd+mean@b16");
  EXPECT_EQ(plan.sweeps[2].experiment, "sgd+adasum-delta@b16");
  EXPECT_TRUE(plan.sweeps[2].trial.data_parallel.combine_deltas);
  EXPECT_FALSE(plan.sweeps[0].trial.data_parallel.combine_deltas);  // mean always combines gradients
  EXPECT_EQ(plan.sweeps[0].trial.eval_at_steps, geometric_eval_steps(256, 10));
  EXPECT_EQ(plan.sweeps[0].trial.data_parallel.virtual_workers, 2);
  EXPECT_EQ(plan.sweeps[1].trial.data_parallel.virtual_workers, 2);

  // A fixed per-worker batch (the Adasum paper's "examples before communication"): the number of
  // workers grows with the batch size.
  r.virtual_workers = 1;
  r.worker_batch = 8;
  plan = plan_scale(r, training_set_size);
  ASSERT_EQ(plan.sweeps.size(), 4u);
  EXPECT_EQ(*plan.sweeps[0].trial.batch_size, 16);
  EXPECT_EQ(plan.sweeps[0].trial.data_parallel.virtual_workers, 2);
  EXPECT_EQ(*plan.sweeps[1].trial.batch_size, 64);
  EXPECT_EQ(plan.sweeps[1].trial.data_parallel.virtual_workers, 8);
  EXPECT_NE(plan.headline(r).find("(8 examples per virtual worker)"), std::string::npos) << plan.headline(r);
}

// Everything a study could only fail on later is refused before anything is written.
TEST(ScaleRequestTest, BadRequestsAreRefusedNamingTheCulprit) {
  const std::vector<std::pair<std::function<void(ScaleRequest&)>, std::string>> cases = {
      {[](ScaleRequest& r) { r.workload = "synthetic_regresion"; }, "synthetic_regresion"},
      {[](ScaleRequest& r) { r.algorithms = {"sgd", "sgd"}, r.spaces.push_back(r.spaces[0]); }, "'sgd' is given twice"},
      {[](ScaleRequest& r) { r.algorithms = {}; }, "-a: no algorithm"},
      {[](ScaleRequest& r) { r.algorithms = {"sgd", "momentum"}; }, "one search space per algorithm"},
      {[](ScaleRequest& r) { r.batch_sizes = "16:16384"; }, "16384 is larger than synthetic_regression's training set"},
      {[](ScaleRequest& r) { r.batch_sizes = "16"; }, "one series needs at least two batch sizes"},
      {[](ScaleRequest& r) { r.epochs = 1; }, "--max-steps or --epochs"},
      {[](ScaleRequest& r) { r.max_steps = 0; }, "--max-steps or --epochs"},
      {[](ScaleRequest& r) { r.perfect = 0.2, r.maximal = 0.5; }, "contradict each other: need 0 <= maximal < perfect"},
      {[](ScaleRequest& r) { r.metric = "validation/bleu"; }, "reports no 'bleu' (its metrics: loss)"},
      {[](ScaleRequest& r) { r.goal = -1; }, "loss is never negative"},
      {[](ScaleRequest& r) { r.noise_scale = 1; }, "at least 2 shards"},
      {[](ScaleRequest& r) { r.noise_scale = 3; }, "--noise-scale 3: batch size 16 does not split"},
      {[](ScaleRequest& r) { r.combines = {"median"}; }, "unknown gradient combiner 'median'"},
      {[](ScaleRequest& r) { r.virtual_workers = 2; }, "--virtual-workers needs --combine"},
      {[](ScaleRequest& r) { r.combines = {"mean"}, r.virtual_workers = 3; }, "--virtual-workers 3: batch size 16"},
      {[](ScaleRequest& r) { r.combines = {"mean"}, r.adasum_mode = "delta"; }, "needs adasum among --combine"},
      {[](ScaleRequest& r) { r.worker_batch = 8; }, "--worker-batch needs --combine"},
      {[](ScaleRequest& r) { r.combines = {"mean"}, r.worker_batch = 8, r.virtual_workers = 2; }, "not both"},
      {[](ScaleRequest& r) { r.combines = {"mean"}, r.worker_batch = 32; }, "--worker-batch 32: batch size 16 is not"},
      {[](ScaleRequest& r) { r.spaces = {"/no/such/space.json"}; }, "/no/such/space.json"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    ScaleRequest r = synthetic_scale_request();
    cases[i].first(r);
    const std::string message = input_error_of([&] { plan_scale(r, training_set_size); });
    EXPECT_NE(message.find(cases[i].second), std::string::npos) << "case " << i << ": " << message;
  }
  ScaleRequest r = synthetic_scale_request();
  r.workload = "fmnist_mlp";
  r.goal = 2.0;
  EXPECT_NE(input_error_of([&] { plan_scale(r, training_set_size); }).find("accuracy lies in [0, 1]"), std::string::npos);
}

// A goal's direction is its metric's, not the workload target's: a loss goal on an accuracy
// workload is reached below its value (it was read as "above" until 2026-12-07, so every eval's
// loss, above 0.4 from the start, "reached" it at the first eval).
TEST(TrainingGoalTest, TheDirectionIsTheMetricsAndAGoalOnAnotherMetricNeedsItsValue) {
  const WorkloadSpec& mlp = workload_spec("fmnist_mlp");
  const TrainingGoal target = resolve_training_goal(mlp, "", std::nullopt);
  EXPECT_EQ(target.metric, "validation/accuracy");
  EXPECT_DOUBLE_EQ(target.value, mlp.validation_target);
  EXPECT_TRUE(target.higher_is_better);

  const TrainingGoal loss = resolve_training_goal(mlp, "loss", 0.4);
  EXPECT_EQ(loss.metric, "validation/loss");
  EXPECT_FALSE(loss.higher_is_better);
  EXPECT_TRUE(loss.reached_by(0.39));
  EXPECT_FALSE(loss.reached_by(0.41));
  EXPECT_FALSE(resolve_training_goal(mlp, "train/grad_norm", 0.1).higher_is_better);
  EXPECT_TRUE(resolve_training_goal(mlp, "test/accuracy", 0.8).higher_is_better);

  // A workload whose target is a loss: accuracy stays "higher is better".
  const WorkloadSpec& lm = workload_spec("fortunes_lm");
  EXPECT_FALSE(resolve_training_goal(lm, "", std::nullopt).higher_is_better);
  EXPECT_TRUE(resolve_training_goal(lm, "accuracy", 0.3).higher_is_better);
  EXPECT_FALSE(resolve_training_goal(lm, "perplexity", 20).higher_is_better);

  // A metric the workload does not declare (a plugin's): the workload's direction.
  WorkloadSpec plugin;
  plugin.name = "plugin_w";
  plugin.target_metric = "score";
  plugin.higher_is_better = false;
  EXPECT_FALSE(resolve_training_goal(plugin, "validation/f1_custom", 0.5).higher_is_better);

  EXPECT_NE(input_error_of([&] { resolve_training_goal(mlp, "loss", std::nullopt); }).find("give its value with --goal"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { resolve_training_goal(mlp, "tset/accuracy", 0.5); }).find("--metric tset/accuracy"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { resolve_training_goal(mlp, "validation/bleu", 0.5); }).find("reports no 'bleu'"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { resolve_training_goal(lm, "perplexity", -1); }).find("perplexity is never negative"),
            std::string::npos);

  // pacer scale reads its goal the same way.
  ScaleRequest r = synthetic_scale_request();
  r.workload = "fmnist_mlp";
  r.metric = "loss";
  r.goal = 0.4;
  const ScalePlan plan = plan_scale(r, training_set_size);
  EXPECT_FALSE(plan.goal.higher_is_better);
  ASSERT_TRUE(plan.sweeps.at(0).trial.goal.has_value());
  EXPECT_FALSE(plan.sweeps.at(0).trial.goal->higher_is_better);
}

TEST(NoiseScaleTest, TwoBatchEstimatorRecoversTraceOverGradientNormSquared) {
  // Per-example gradients ~ N(G, sigma^2 I) in d dimensions: tr(Sigma) = d sigma^2.
  const int d = 20, shards = 4, per_shard = 8;
  const double sigma = 0.5;
  std::vector<double> g(d);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  double g_sq = 0.0;
  for (auto& v : g) {
    v = 0.1 * normal(rng);
    g_sq += v * v;
  }
  const double expected = d * sigma * sigma / g_sq;
  NoiseScaleEstimator estimator(0.999);
  for (int sample = 0; sample < 4000; ++sample) {
    std::vector<double> total(d, 0.0);
    double small_sq = 0.0;
    for (int k = 0; k < shards; ++k) {
      std::vector<double> shard(d, 0.0);
      for (int e = 0; e < per_shard; ++e) {
        for (int i = 0; i < d; ++i) shard[i] += (g[i] + sigma * normal(rng)) / per_shard;
      }
      for (int i = 0; i < d; ++i) {
        small_sq += shard[i] * shard[i] / shards;
        total[i] += shard[i] / shards;
      }
    }
    double big_sq = 0.0;
    for (double v : total) big_sq += v * v;
    estimator.add({per_shard, small_sq, per_shard * shards, big_sq});
  }
  ASSERT_TRUE(estimator.b_simple());
  EXPECT_NEAR(*estimator.trace_sigma(), d * sigma * sigma, 0.1 * d * sigma * sigma);
  EXPECT_NEAR(*estimator.b_simple() / expected, 1.0, 0.15) << "expected " << expected;
  EXPECT_THROW(estimator.add({8, 1.0, 8, 1.0}), Error);
}

class ScaleCliTest : public testing::CliFixture {};

TEST_F(ScaleCliTest, SyntheticStudyShowsAllThreeRegimesAndBcritMatchesTheNoiseScale) {
  const std::string args = "scale -w synthetic_regression -a sgd --space '" + std::string(PACER_SOURCE_DIR) +
                           "/spaces/sgd_scaling.json' --batch-sizes 2:512 --trials 8 --max-steps 1000 --evals 500 "
                           "--goal 0.3 --noise-scale 2 --threads 1 -q --store '" + dir_ + "/scale.db' --out '" + dir_ +
                           "/out'";
  auto r = pacer(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(testing::read_file(dir_ + "/out/scaling.json"));
  const auto& series = report["series"][0];
  std::set<std::string> regimes;
  int reached = 0;
  for (const auto& row : series["batch_sizes"]) {
    regimes.insert(row["regime"].get<std::string>());
    reached += !row["steps_to_result"].is_null();
    EXPECT_EQ(row["trials"], 8);
    // The best trial is named as its log folder is (the table shows the same name).
    if (!row["best_trial"].is_null()) {
      const std::string folder = row["best_trial_folder"].get<std::string>();
      EXPECT_TRUE(std::filesystem::exists(dir_ + "/out/logs/" + folder + "/trial.json")) << folder;
      EXPECT_NE(r.out.find(folder), std::string::npos) << folder;
    }
  }
  EXPECT_EQ(series["batch_sizes"].size(), 9u);
  EXPECT_GE(reached, 8);
  EXPECT_TRUE(regimes.count("perfect scaling")) << series.dump();
  EXPECT_TRUE(regimes.count("diminishing returns")) << series.dump();
  EXPECT_TRUE(regimes.count("maximal data parallelism")) << series.dump();
  const double b_crit = series["fit"]["b_crit"], noise = series["noise_scale"];
  EXPECT_GT(b_crit / noise, 0.5) << b_crit << " vs " << noise;
  EXPECT_LT(b_crit / noise, 2.0) << b_crit << " vs " << noise;
  EXPECT_NE(r.out.find("fit S(B) = S_min (1 + B_crit / B)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/out/steps_vs_batch_size.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/out/report.html"));
  // Resume: the same command runs nothing new and reports the same numbers.
  auto again = pacer(args);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, r.out);
  // --json: stdout is scaling.json's content (nothing else on it).
  auto json = pacer(args + " --json");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out), nlohmann::json::parse(testing::read_file(dir_ + "/out/scaling.json")));
  // --no-run: the light pacer reads the same studies without the training program; without it
  // the command trains, so it is handed on.
  ASSERT_EQ(::setenv("PACER_TRAINING_PROGRAM", "/nonexistent/pacer-train", 1), 0);
  const auto read = pacer(args + " --json --no-run");
  const auto handed = pacer(args + " --json");
  ::unsetenv("PACER_TRAINING_PROGRAM");
  ASSERT_EQ(read.code, 0) << read.err;
  EXPECT_EQ(nlohmann::json::parse(read.out), nlohmann::json::parse(json.out));
  EXPECT_EQ(read.err.find("--no-run:"), std::string::npos) << read.err;  // every study there, every trial ended
  EXPECT_EQ(handed.code, 1);
  EXPECT_NE(handed.err.find("for 'pacer scale'"), std::string::npos) << handed.err;
  // `pacer report` renders the folder again from scaling.json alone.
  std::filesystem::remove(dir_ + "/out/report.html");
  auto page = pacer("report '" + dir_ + "/out'");
  ASSERT_EQ(page.code, 0) << page.err;
  const std::string html = testing::read_file(dir_ + "/out/report.html");
  EXPECT_NE(html.find("id=\"steps-vs-batch-size\""), std::string::npos);
  EXPECT_NE(html.find("id=\"learning-rate-vs-batch-size\""), std::string::npos);
  EXPECT_NE(html.find("id=\"critical-batch\""), std::string::npos);
  EXPECT_NE(html.find("maximal data parallelism"), std::string::npos);
  // Bad input exits 2 naming the culprit.
  auto bad = pacer("scale -w synthetic_regression -a sgd --batch-sizes 64:8 --max-steps 10 --store '" + dir_ + "/x.db'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--batch-sizes"), std::string::npos) << bad.err;
}

// --race stops a trial once it can no longer lower its study's steps-to-result: every study's
// result and best trial are those of the same studies run to the end, in fewer steps trained.
TEST_F(ScaleCliTest, RacingTrainsFewerStepsAndChangesNoStudysResultOrBestTrial) {
  auto study = [&](const std::string& name, const std::string& extra) {
    const std::string args = "scale -w synthetic_regression -a sgd --space '" + std::string(PACER_SOURCE_DIR) +
                             "/spaces/sgd_scaling.json' --batch-sizes 4:64 --trials 6 --max-steps 400 --evals 40 "
                             "--eval-spacing log --goal 0.3 --threads 1 -q --store '" + dir_ + "/" + name +
                             ".db' --out '" + dir_ + "/" + name + "'" + extra;
    auto r = pacer(args);
    EXPECT_EQ(r.code, 0) << r.err;
    int64_t steps = 0, raced = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/" + name + "/logs")) {
      if (entry.path().filename() != "trial.json") continue;
      const auto trial = nlohmann::json::parse(testing::read_file(entry.path().string()));
      steps += trial["steps"].get<int64_t>();
      raced += trial["stop_reason"] == "race_study_best";
    }
    return std::make_tuple(nlohmann::json::parse(testing::read_file(dir_ + "/" + name + "/scaling.json")), steps, raced);
  };
  const auto [full, full_steps, full_raced] = study("full", "");
  const auto [raced, raced_steps, raced_count] = study("raced", " --race");
  EXPECT_EQ(full_raced, 0);
  EXPECT_GT(raced_count, 0);
  EXPECT_LT(raced_steps, full_steps);
  const auto& a = full["series"][0]["batch_sizes"];
  const auto& b = raced["series"][0]["batch_sizes"];
  ASSERT_EQ(a.size(), b.size());
  int reached = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["steps_to_result"], b[i]["steps_to_result"]) << a[i].dump() << "\n" << b[i].dump();
    EXPECT_EQ(a[i]["best_trial_folder"], b[i]["best_trial_folder"]) << a[i].dump() << "\n" << b[i].dump();
    EXPECT_EQ(a[i]["best_hyperparameters"], b[i]["best_hyperparameters"]);
    reached += !a[i]["steps_to_result"].is_null();
  }
  EXPECT_GE(reached, 4);  // the comparison means something only where trials reached the goal
}

// Combiners as series: with 2 virtual workers, mean and Adasum each get their own curve; log-spaced
// evals; a corrupt scaling.json is an input error for `pacer report`.
TEST_F(ScaleCliTest, CombinersAreSeriesAndReportRejectsACorruptStudy) {
  const std::string args = "scale -w synthetic_regression -a sgd --space '" + std::string(PACER_SOURCE_DIR) +
                           "/spaces/sgd_scaling.json' --batch-sizes 8,32 --trials 2 --max-steps 200 --evals 20 "
                           "--eval-spacing log --goal 0.5 --combine mean,adasum --virtual-workers 2 --threads 1 -q "
                           "--store '" + dir_ + "/c.db' --out '" + dir_ + "/c'";
  auto r = pacer(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(testing::read_file(dir_ + "/c/scaling.json"));
  ASSERT_EQ(report["series"].size(), 2u) << report.dump();
  EXPECT_EQ(report["series"][0]["name"], "sgd+mean");
  EXPECT_EQ(report["series"][1]["name"], "sgd+adasum");
  for (const auto& series : report["series"]) {
    for (const auto& row : series["batch_sizes"]) EXPECT_EQ(row["trials"], 2);
  }
  // Log spacing: every logged eval is at a geometric step (or step 1, always evaluated).
  const std::vector<int64_t> schedule = geometric_eval_steps(200, 20);
  int csv_files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/c/logs")) {
    if (entry.path().filename() != "eval_measurements.csv") continue;
    ++csv_files;
    std::istringstream lines(testing::read_file(entry.path().string()));
    std::string header, line;
    std::getline(lines, header);
    size_t column = 0;
    for (size_t pos = 0, next; pos <= header.size(); pos = next + 1, ++column) {
      next = std::min(header.find(',', pos), header.size());
      if (header.substr(pos, next - pos) == "global_step") break;
    }
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string field;
      for (size_t c = 0; c <= column; ++c) std::getline(fields, field, ',');
      const int64_t step = std::stoll(field);
      EXPECT_TRUE(step == 1 || std::binary_search(schedule.begin(), schedule.end(), step)) << step << " in " << entry.path();
    }
  }
  EXPECT_EQ(csv_files, 8);  // 2 series x 2 batch sizes x 2 trials
  auto bad_k = pacer("scale -w synthetic_regression -a sgd --batch-sizes 6,8 --combine mean --virtual-workers 4 "
                     "--max-steps 10 --store '" + dir_ + "/k.db'");
  EXPECT_EQ(bad_k.code, 2);
  EXPECT_NE(bad_k.err.find("--virtual-workers"), std::string::npos) << bad_k.err;
  auto bad_c = pacer("scale -w synthetic_regression -a sgd --batch-sizes 8,16 --combine median --max-steps 10 --store '" +
                     dir_ + "/k.db'");
  EXPECT_EQ(bad_c.code, 2);
  EXPECT_NE(bad_c.err.find("median"), std::string::npos) << bad_c.err;

  std::ofstream(dir_ + "/c/scaling.json") << "{\"workload\": \"x\"";
  auto corrupt = pacer("report '" + dir_ + "/c'");
  EXPECT_EQ(corrupt.code, 2);
  EXPECT_NE(corrupt.err.find("scaling.json"), std::string::npos) << corrupt.err;
}

}  // namespace
}  // namespace pacer
