// The study analysis (src/analyze): each check on synthetic studies with known answers, then the
// whole analysis end to end from a study store, its JSON, its self-contained page as parsed by
// headless Chromium (skipped where Chromium is not installed) and the `pacer analyze` command.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <string>

#include "analyze/analysis_page.h"
#include "analyze/best_of_k.h"
#include "analyze/boundary_check.h"
#include "analyze/curve_diagnosis.h"
#include "analyze/hyperparameter_importance.h"
#include "analyze/isolation.h"
#include "analyze/study_analysis.h"
#include "analyze/study_data.h"
#include "core/error.h"
#include "report/svg_chart.h"
#include "store/study_store.h"
#include "support/cli_runner.h"
#include "support/headless_chromium.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

const char* kSpace =
    R"({"learning_rate": {"min": 1e-4, "max": 1e-1, "scaling": "log"},
        "weight_decay": {"min": 0.0, "max": 0.5, "scaling": "linear"},
        "warmup_factor": {"feasible_points": [0.05]}})";

TrialData make_trial(int index, std::optional<double> objective, std::vector<std::pair<std::string, double>> hparams,
                     const std::string& study = "nadamw/fmnist_mlp/study_1") {
  TrialData t;
  t.study = study;
  t.experiment = "nadamw";
  t.record.index = index;
  t.record.status = objective ? StoredTrialStatus::complete : StoredTrialStatus::diverged;
  t.objective = objective;
  t.hparams = std::move(hparams);
  return t;
}

StudyData make_data() {
  StudyData d;
  d.selector = "nadamw/fmnist_mlp";
  d.workload = "fmnist_mlp";
  d.objective_metric = "validation/accuracy";
  d.higher_is_better = true;
  d.space = SearchSpace::from_json_text(kSpace, "test space");
  return d;
}

// 20 trials over the learning-rate range (log-uniform grid), weight decay in the middle third.
StudyData learning_rate_study(const std::function<double(double)>& objective_of_log_lr) {
  StudyData d = make_data();
  for (int i = 0; i < 20; ++i) {
    const double log_lr = -4.0 + 3.0 * i / 19.0;
    const double wd = 0.2 + 0.1 * ((i * 7) % 20) / 20.0;
    d.trials.push_back(make_trial(i + 1, objective_of_log_lr(log_lr),
                                  {{"learning_rate", std::pow(10.0, log_lr)}, {"weight_decay", wd}, {"warmup_factor", 0.05}}));
  }
  return d;
}

TEST(BoundaryCheck, BestOnTheUpperEdgeOfALogRangeSaysExpandUpwards) {
  const StudyData d = learning_rate_study([](double log_lr) { return 0.5 + 0.1 * log_lr; });
  const BoundaryCheck check = check_boundaries(d);
  EXPECT_EQ(check.best_count, 2u);  // ceil(10% of 20)
  EXPECT_EQ(check.verdicts(), std::vector<std::string>{"expand learning_rate upwards"});
  ASSERT_EQ(check.dimensions.size(), 3u);
  EXPECT_TRUE(check.dimensions[0].checked);
  EXPECT_NEAR(check.dimensions[0].best[0].unit, 1.0, 1e-9);  // log space: the top of the range
  EXPECT_EQ(check.dimensions[0].best[0].trial, "study_1/trial_20");
  EXPECT_TRUE(check.dimensions[1].checked);
  EXPECT_TRUE(check.dimensions[1].verdict.empty());
  EXPECT_FALSE(check.dimensions[2].checked);  // feasible_points
  EXPECT_FALSE(check.dimensions[2].skip_reason.empty());
}

TEST(BoundaryCheck, LowerEdgeAndInteriorOptimum) {
  EXPECT_EQ(check_boundaries(learning_rate_study([](double log_lr) { return -log_lr; })).verdicts(),
            std::vector<std::string>{"expand learning_rate downwards"});
  const auto interior = check_boundaries(learning_rate_study([](double log_lr) { return -std::pow(log_lr + 2.5, 2); }));
  EXPECT_TRUE(interior.verdicts().empty());
  EXPECT_NEAR(interior.dimensions[0].best[0].unit, 0.5, 0.05);
  StudyData no_space = make_data();
  no_space.space.reset();
  EXPECT_FALSE(check_boundaries(no_space).skip_reason.empty());
}

TEST(BestOfK, KnownSmallSetAndReproducibility) {
  const BestOfK b = best_of_k({1.0, 2.0, 3.0}, /*higher_is_better=*/true, 1000, 7);
  ASSERT_EQ(b.points.size(), 3u);
  EXPECT_NEAR(b.points[0].expected, 2.0, 0.1);          // k = 1: the mean
  EXPECT_NEAR(b.points[2].expected, 72.0 / 27.0, 0.1);  // E[max of 3 draws]
  EXPECT_GT(b.points[2].expected, b.points[0].expected);
  EXPECT_LE(b.points[0].p10, b.points[0].expected);
  EXPECT_GE(b.points[0].p90, b.points[0].expected);
  EXPECT_EQ(b.verdict, "too few trials");
  const BestOfK again = best_of_k({1.0, 2.0, 3.0}, true, 1000, 7);
  EXPECT_EQ(again.points[1].expected, b.points[1].expected);
  // Lower is better: the best of k falls.
  const BestOfK lower = best_of_k({1.0, 2.0, 3.0}, false, 1000, 7);
  EXPECT_NEAR(lower.points[0].expected, 2.0, 0.1);
  EXPECT_NEAR(lower.points[2].expected, 4.0 - 72.0 / 27.0, 0.1);
  // An infeasible trial counts as the worst: k = 1 over {1, 1, 2}.
  EXPECT_NEAR(best_of_k({std::nullopt, 1.0, 2.0}, true, 2000, 1).points[0].expected, 4.0 / 3.0, 0.1);
  EXPECT_EQ(best_of_k({std::nullopt, std::nullopt}, true).verdict, "no feasible trials");
}

TEST(BestOfK, SaturatedVersusMoreTrialsWouldHelp) {
  // Half the trials share the best value: a few draws already find it.
  std::vector<std::optional<double>> plateau;
  for (int i = 0; i < 20; ++i) plateau.push_back(i < 10 ? 1.0 : 0.05 * i - 0.5);
  EXPECT_EQ(best_of_k(plateau, true).verdict, "saturated");
  // One outstanding trial: the expected best still rises over the last half of k.
  std::vector<std::optional<double>> outlier(19, 0.0);
  outlier.push_back(10.0);
  const BestOfK b = best_of_k(outlier, true);
  EXPECT_EQ(b.verdict, "more trials would likely help");
  EXPECT_GT(b.late_gain, 0.1 * b.total_gain);
}

// 20 evals at steps 100..2000.
TrialData curve_trial(const std::function<double(int)>& train, const std::function<double(int)>& val,
                      const std::function<double(int)>& accuracy) {
  TrialData t = make_trial(1, 0.0, {});
  for (int i = 0; i < 20; ++i) {
    EvalRecord e;
    e.step = 100 * (i + 1);
    e.metrics = {{"train/loss", train(i)}, {"validation/loss", val(i)}, {"validation/accuracy", accuracy(i)}};
    t.evals.push_back(e);
  }
  t.objective = trial_objective(t.record.status, t.evals, "validation/accuracy", true);
  return t;
}

TEST(CurveDiagnosis, OverfittingStillImprovingAndPeakedEarly) {
  const auto falling = [](int i) { return 2.0 * std::exp(-i / 5.0); };
  // U-shaped validation loss (minimum at eval 8) while the train loss keeps falling.
  const auto overfit = diagnose_curve(
      curve_trial(falling, [](int i) { return 1.0 + 0.01 * (i - 8) * (i - 8); },
                  [](int i) { return 0.9 - 0.001 * (i - 8) * (i - 8); }),
      "validation/accuracy", true);
  EXPECT_EQ(overfit.verdicts, std::vector<std::string>{kOverfitting});
  EXPECT_EQ(overfit.best_step, 900);
  EXPECT_EQ(overfit.final_step, 2000);
  EXPECT_NEAR(*overfit.validation_loss_min, 1.0, 1e-12);

  const auto improving = diagnose_curve(
      curve_trial(falling, [](int i) { return 1.5 - 0.05 * i; }, [](int i) { return 0.5 + 0.02 * i; }),
      "validation/accuracy", true);
  EXPECT_EQ(improving.verdicts, std::vector<std::string>{kTrainLonger});
  EXPECT_EQ(improving.best_step, 2000);

  const auto early = diagnose_curve(
      curve_trial(falling, [](int) { return 1.0; }, [](int i) { return i == 0 ? 0.9 : 0.85 - 0.001 * i; }),
      "validation/accuracy", true);
  EXPECT_EQ(early.verdicts, std::vector<std::string>{kPeakedEarly});
  EXPECT_EQ(early.best_step, 100);
  EXPECT_NEAR(early.final_value, 0.85 - 0.019, 1e-12);

  // Rising to 0.9 by mid-run, then jumping by +-0.06 around it.
  const auto noisy = diagnose_curve(
      curve_trial(falling, [](int) { return 1.0; },
                  [](int i) { return i < 10 ? 0.5 + 0.04 * i : 0.86 + (i % 2 ? 0.06 : 0.0); }),
      "validation/accuracy", true);
  EXPECT_NE(std::find(noisy.verdicts.begin(), noisy.verdicts.end(), kNoisyLate), noisy.verdicts.end());
  EXPECT_EQ(std::find(improving.verdicts.begin(), improving.verdicts.end(), kNoisyLate), improving.verdicts.end());
}

TEST(HyperparameterImportance, RanksTheDeterminingHyperparameterAboveNoise) {
  StudyData d = make_data();
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 30; ++i) {
    const double log_lr = -4.0 + 3.0 * u(rng), wd = 0.5 * u(rng);
    const bool diverged = log_lr > -1.3;
    d.trials.push_back(make_trial(i + 1, diverged ? std::nullopt : std::optional<double>(-std::pow(log_lr + 2.5, 2)),
                                  {{"learning_rate", std::pow(10.0, log_lr)}, {"weight_decay", wd}}));
  }
  const Importance imp = hyperparameter_importance(d);
  ASSERT_TRUE(imp.meaningful);
  ASSERT_EQ(imp.ranked.size(), 2u);
  EXPECT_EQ(imp.ranked[0].name, "learning_rate");
  EXPECT_GT(imp.ranked[0].eta_squared, 0.7);
  EXPECT_TRUE(above_chance(imp.ranked[0]));
  EXPECT_LT(imp.ranked[1].eta_squared, imp.ranked[0].eta_squared);
  EXPECT_EQ(imp.ranked[0].bins.size(), 5u);
  // The diverged trials (largest learning rates) land in the top bin.
  EXPECT_GT(imp.ranked[0].bins.back().infeasible, 0);
  EXPECT_EQ(imp.ranked[0].bins.front().infeasible, 0);

  StudyData small = make_data();
  for (int i = 0; i < 5; ++i) small.trials.push_back(make_trial(i + 1, 0.1 * i, {{"learning_rate", 0.001 * (i + 1)}}));
  EXPECT_FALSE(hyperparameter_importance(small).meaningful);
}

TEST(Isolation, BestValueAndSpreadOverStudies) {
  StudyData d = make_data();
  d.scientific_name = "activation";
  auto add = [&](const std::string& value, int study, double objective) {
    TrialData t = make_trial(static_cast<int>(d.trials.size()) + 1, objective, {{"learning_rate", 0.01}},
                             "nadamw@activation=" + value + "/fmnist_mlp/study_" + std::to_string(study));
    t.experiment = "nadamw@activation=" + value;
    t.scientific_value = value;
    d.trials.push_back(t);
  };
  add("relu", 1, 0.88), add("relu", 1, 0.80), add("relu", 2, 0.90);
  add("tanh", 1, 0.85), add("tanh", 2, 0.86);
  const auto iso = isolate_scientific(d);
  ASSERT_TRUE(iso.has_value());
  ASSERT_EQ(iso->groups.size(), 2u);
  EXPECT_EQ(iso->groups[0].value, "relu");
  EXPECT_NEAR(*iso->groups[0].mean, 0.89, 1e-12);  // per-study bests 0.88 and 0.90
  EXPECT_NEAR(*iso->groups[0].min, 0.88, 1e-12);
  EXPECT_EQ(iso->verdict, "activation=relu is best (mean 0.89 over 2 studies)");
  add("tanh", 3, 0.885);  // now the spreads overlap
  EXPECT_NE(isolate_scientific(d)->verdict.find("not conclusive"), std::string::npos);
  d.scientific_name.clear();
  EXPECT_FALSE(isolate_scientific(d).has_value());
}

TEST(StudyData, ExperimentNamesAndSelection) {
  const auto e = parse_experiment_name("nadamw@activation=tanh");
  EXPECT_EQ(e.base, "nadamw");
  EXPECT_EQ(e.scientific_name, "activation");
  EXPECT_EQ(e.scientific_value, "tanh");
  EXPECT_EQ(parse_experiment_name("nadamw").scientific_name, "");
  std::vector<StudyRecord> all;
  for (const std::string experiment : {"nadamw", "nadamw@activation=tanh", "nadamwx", "adamw"}) {
    for (int k = 1; k <= 2; ++k) {
      StudyRecord s;
      s.experiment = experiment;
      s.workload = "fmnist_mlp";
      s.study_index = k;
      all.push_back(s);
    }
  }
  EXPECT_EQ(select_sweep_studies(all, "nadamw/fmnist_mlp").size(), 4u);
  const auto one = select_sweep_studies(all, "nadamw/fmnist_mlp/study_2");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].experiment, "nadamw");
  try {
    select_sweep_studies(all, "sgd/fmnist_mlp");
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("nadamw/fmnist_mlp, nadamwx/fmnist_mlp, adamw/fmnist_mlp"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(select_sweep_studies(all, "nadamw"), InputError);
  EXPECT_THROW(analyze_study(make_data()), InputError);  // no finished trial
}

// ---- End to end: a store with two scientific rounds, the JSON, the page, the CLI. ----

using pacer::testing::read_file;
size_t count(const std::string& haystack, const std::string& needle) {
  return pacer::testing::count_occurrences(haystack, needle);
}
int run(const std::string& command) { return pacer::testing::run_shell(command); }


class AnalyzeStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "analyze_test_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    store_path_ = dir_ + "/tune.db";
    StudyStore store(store_path_);
    std::vector<StudyDefinition> definitions;
    for (const std::string value : {"relu", "tanh"}) {
      StudyDefinition d;
      d.experiment = "nadamw@activation=" + value;
      d.sweep = d.experiment + "#fmnist_mlp";
      d.identity = d.sweep + "#1";
      d.workload = "fmnist_mlp";
      d.algorithm = "nadamw";
      d.ruleset = "external";
      d.study_index = 1;
      d.space_json = R"({"learning_rate": {"min": 1e-4, "max": 1e-1, "scaling": "log"},
                         "weight_decay": {"min": 0.0, "max": 0.5, "scaling": "linear"}})";
      d.sampler = "halton";
      d.trial_spec = "{}";
      d.trials = 6;
      definitions.push_back(d);
    }
    const auto studies = store.ensure_studies(
        definitions, [](const StudyRecord&, int64_t first_index, int64_t count, int64_t first_position) {
          std::vector<NewTrial> out;
          for (int64_t i = 0; i < count; ++i) {
            const double lr = std::pow(10.0, -4.0 + 0.5 * static_cast<double>(first_index + i));
            NewTrial t;
            t.position = first_position + i;
            t.hparams_json = nlohmann::json{{"learning_rate", lr}, {"weight_decay", 0.08 * (first_index + i)}}.dump();
            t.seed = static_cast<uint64_t>(first_index + i);
            out.push_back(t);
          }
          return out;
        });
    const std::string me = StudyStore::make_owner_id();
    for (const auto& study : studies) {
      const double offset = study.experiment.find("relu") != std::string::npos ? 0.02 : 0.0;
      // Trials 1..5 run (trial 5, the largest learning rate, diverges); trial 6 of tanh stays pending.
      for (int n = 0; n < (offset > 0 ? 6 : 5); ++n) {
        auto trial = store.claim_trial({study.id}, me, 60);
        ASSERT_TRUE(trial.has_value());
        const double lr = nlohmann::json::parse(*trial->hparams_json)["learning_rate"].get<double>();
        const bool diverges = trial->index == 5;
        const double peak = 0.8 + offset - 0.02 * std::pow(std::log10(lr) + 2.5, 2);
        for (int i = 0; i < 8 && !diverges; ++i) {
          EvalRecord e;
          e.step = 50 * (i + 1);
          e.metrics = {{"train/loss", 1.0 / (i + 1)},
                       {"validation/loss", 1.2 / (i + 1) + 0.1},
                       {"validation/accuracy", peak - 0.1 / (i + 1)}};
          store.record_eval(trial->id, me, trial->attempts, i, e);
        }
        TrialOutcome o;
        o.status = diverges ? TrialStatus::diverged : TrialStatus::not_reached;
        o.steps = 400;
        store.finish_trial(trial->id, me, o);
      }
    }
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_, store_path_;
};

TEST_F(AnalyzeStoreTest, LoadsAnalysesAndWritesJsonAndPage) {
  StudyStoreOptions options;
  options.create = false;
  StudyStore store(store_path_, options);
  StudyData data = load_study_data(store, "nadamw/fmnist_mlp");
  EXPECT_EQ(data.objective_metric, "validation/accuracy");
  EXPECT_TRUE(data.higher_is_better);
  EXPECT_EQ(data.scientific_name, "activation");
  EXPECT_EQ(data.trials.size(), 11u);
  EXPECT_EQ(data.unfinished, 1);
  EXPECT_EQ(data.feasible_count(), 9u);
  ASSERT_TRUE(data.space.has_value());
  const StudyAnalysis analysis = analyze_study(std::move(data));
  EXPECT_EQ(analysis.curves.size(), 3u);
  ASSERT_TRUE(analysis.isolation.has_value());
  EXPECT_EQ(analysis.isolation->verdict.rfind("activation=relu is best", 0), 0u) << analysis.isolation->verdict;
  // Accuracy still rising at the last eval: every best curve says train longer.
  for (const auto& c : analysis.curves) {
    EXPECT_NE(std::find(c.verdicts.begin(), c.verdicts.end(), kTrainLonger), c.verdicts.end()) << c.trial;
  }

  write_study_analysis(analysis, dir_ + "/out");
  const auto j = nlohmann::json::parse(read_file(dir_ + "/out/analysis.json"));
  EXPECT_EQ(j["selection"], "nadamw/fmnist_mlp");
  EXPECT_EQ(j["counts"]["finished"], 11);
  EXPECT_EQ(j["counts"]["infeasible"], 2);
  EXPECT_EQ(j["counts"]["unfinished"], 1);
  EXPECT_EQ(j["checks"]["best_of_k"]["points"].size(), 11u);
  EXPECT_EQ(j["checks"]["isolation"]["groups"].size(), 2u);
  EXPECT_EQ(j["trials"].size(), 11u);
  EXPECT_FALSE(j["verdicts"].empty());

  const std::string html = read_file(dir_ + "/out/analysis.html");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg"));
  EXPECT_EQ(count(html, "class=\"axis-plot\""), 2u);
  EXPECT_NE(html.find("class=\"marker cross\""), std::string::npos);  // the diverged trials
}

TEST_F(AnalyzeStoreTest, PageRendersInHeadlessChromium) {
  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not installed (scripts/setup.sh installs the Debian package chromium)";
  StudyStoreOptions options;
  options.create = false;
  StudyStore store(store_path_, options);
  write_study_analysis(analyze_study(load_study_data(store, "nadamw/fmnist_mlp")), dir_ + "/out");
  std::string dom;
  ASSERT_EQ(testing::chromium_dump_dom(chromium, dir_ + "/out/analysis.html", dir_, dom), 0)
      << read_file(dir_ + "/chromium.log");
  const size_t verdicts_at = dom.find("<ul id=\"verdicts\">");
  ASSERT_NE(verdicts_at, std::string::npos) << dom.substr(0, 800);
  EXPECT_GE(count(dom.substr(verdicts_at, dom.find("</ul>", verdicts_at) - verdicts_at), "<li"), 3u);
  const size_t trials_at = dom.find("<table id=\"trials\">");
  ASSERT_NE(trials_at, std::string::npos);
  const std::string trials = dom.substr(trials_at, dom.find("</table>", trials_at) - trials_at);
  EXPECT_EQ(count(trials, "<tr"), 1u + 11u);  // head + every finished trial
  EXPECT_EQ(count(trials, "<tr class=\"infeasible\">"), 2u);
  EXPECT_TRUE(std::regex_search(dom, std::regex("<svg[^>]*id=\"best-of-k\"")));
  EXPECT_TRUE(std::regex_search(dom, std::regex("<div id=\"axis-plots\">(<svg[^>]*class=\"axis-plot\")")));
  EXPECT_EQ(count(dom, "class=\"axis-plot\""), 2u);
  EXPECT_TRUE(std::regex_search(dom, std::regex("<svg[^>]*id=\"isolation\"")));
  EXPECT_NE(dom.find("<table id=\"isolation\">"), std::string::npos);
  EXPECT_EQ(count(dom, "class=\"curve\""), 3u);
  EXPECT_NE(dom.find("<table id=\"importance\">"), std::string::npos);
  EXPECT_NE(dom.find("</html>"), std::string::npos);
}

TEST_F(AnalyzeStoreTest, Command) {
  const std::string pacer = "'" + std::string(PACER_BINARY) + "' analyze ";
  ASSERT_EQ(run("cd '" + dir_ + "' && " + pacer + "tune.db nadamw/fmnist_mlp --out cli --resamples 200 >out.txt 2>&1"), 0)
      << read_file(dir_ + "/out.txt");
  const std::string text = read_file(dir_ + "/out.txt");
  EXPECT_NE(text.find("activation=relu is best"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(dir_ + "/cli/analysis.json"));
  EXPECT_TRUE(fs::exists(dir_ + "/cli/analysis.html"));
  ASSERT_EQ(run("cd '" + dir_ + "' && " + pacer + "tune.db nadamw/fmnist_mlp --out '' --json >out.json 2>&1"), 0);
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ + "/out.json"))["checks"]["best_of_k"]["resamples"], 1000);
  // Input errors exit 2: no store, no matching study (the message lists the sweeps).
  EXPECT_EQ(run(pacer + "'" + dir_ + "/missing.db' nadamw/fmnist_mlp --out '' >/dev/null 2>&1"), 2);
  EXPECT_EQ(run(pacer + "'" + store_path_ + "' sgd/fmnist_mlp --out '' >/dev/null 2>'" + dir_ + "/err.txt'"), 2);
  EXPECT_NE(read_file(dir_ + "/err.txt").find("nadamw/fmnist_mlp"), std::string::npos) << read_file(dir_ + "/err.txt");
}

TEST(SvgChart, ScatterLogAxisAndCategoricalTicksLeaveLineChartsAlone) {
  LineChart chart;
  chart.log_x = true;
  chart.series.push_back({"feasible", "#000", {{1e-4, 1}, {1e-2, 2}, {-1, 3}}, false, true, "cross"});
  const std::string svg = chart.render();
  EXPECT_EQ(count(svg, "class=\"marker cross\""), 2u + 1u);  // two points (x <= 0 dropped) + the legend
  EXPECT_NE(svg.find(">0.001</text>"), std::string::npos);
  EXPECT_EQ(svg.find("<polyline"), std::string::npos);
  LineChart bars;
  bars.x_tick_labels = {{0, "relu"}, {1, "tanh"}};
  ChartSeries s{"mean", "#000", {{0, 1}, {1, 2}}, false, true, "square"};
  s.y_bars = {{0.5, 1.5}, {1.8, 2.2}};
  bars.series.push_back(s);
  const std::string bar_svg = bars.render();
  EXPECT_EQ(count(bar_svg, "class=\"bar\""), 2u);
  EXPECT_NE(bar_svg.find(">relu</text>"), std::string::npos);
}

}  // namespace
}  // namespace pacer
