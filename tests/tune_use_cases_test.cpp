// The tune layer's use-cases in process. `pacer tune`: plan_tune turns a request into validated
// sweeps (workloads or a suite, v0.5's held-out draw, the ruleset's defaults, a scientific axis)
// and refuses bad input naming the culprit; the held-out record; the headline and overhead lines.
// The summary a tune ends with. `pacer board`: make_board_setup's defaults and refusals; the
// progress and unfinished lines; the outputs it writes. `pacer run`:
// run_one_trial's budget under the rules presets, its results folder written once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "algorithms/algorithm_declarations.h"
#include "catalog/plugin_records.h"
#include "core/error.h"
#include "algorithms/registry.h"
#include "support/input_error.h"
#include "report/board_outputs.h"
#include "store/study_store.h"
#include "tune/board_progress_reporter.h"
#include "tune/board_request.h"
#include "run/run_request.h"
#include "tune/sweep.h"
#include "tune/tune_request.h"
#include "workloads/registry.h"
#include "catalog/suites.h"
#include "catalog/trial_spec.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

using testing::input_error_of;

class TuneRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("pacer_tune_request_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    space_ = write("space.json", R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"},
                                     "weight_decay": {"feasible_points": [0.0]}})");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  TuneRequest sgd_request() const {
    TuneRequest r;
    r.workloads = {"synthetic_regression"};
    r.algorithm = "sgd";
    r.space_file = space_;
    return r;
  }
  std::string dir_, space_;
};

TEST_F(TuneRequestTest, AnExternalRequestBecomesOneSweepPerWorkloadWithTheRulesDefaults) {
  TuneRequest r = sgd_request();
  r.workloads = {"synthetic_regression", "fmnist_mlp"};
  r.seed = 7;
  const TunePlan plan = plan_tune(r);
  ASSERT_EQ(plan.sweeps.size(), 2u);
  EXPECT_EQ(plan.rules->name, default_rules_name());
  for (const auto& sweep : plan.sweeps) {
    EXPECT_EQ(sweep.experiment, "sgd");
    EXPECT_EQ(sweep.studies, plan.rules->num_studies);
    EXPECT_EQ(sweep.trials, kDefaultTrialsPerStudy);
    EXPECT_EQ(sweep.seed, 7u);
    EXPECT_EQ(sweep.trial.budget_multiplier, 1.0);
    ASSERT_TRUE(sweep.space.has_value());
    EXPECT_EQ(sweep.space->names(), (std::vector<std::string>{"learning_rate", "weight_decay"}));
  }
  EXPECT_EQ(plan.sweeps[1].workload, "fmnist_mlp");
  StudyProgress before;
  before.done = 3;
  before.pending = 27;
  EXPECT_EQ(plan.headline("t.db", before),
            "pacer tune: 2 workload(s) x 3 studies x 5 trials (external tuning, v0.6); store t.db: 3 done, 27 to run");
}

TEST_F(TuneRequestTest, SelfTuningRunsOneTrialPerStudyOnTheRulesBudgetUnlessOneIsGiven) {
  TuneRequest r = sgd_request();
  r.space_file.clear();
  r.ruleset = Ruleset::self;
  EXPECT_EQ(plan_tune(r).sweeps[0].trials, 1);
  EXPECT_EQ(plan_tune(r).sweeps[0].trial.budget_multiplier, 1.5);  // v0.6
  r.rules = "v0.5";
  EXPECT_EQ(plan_tune(r).sweeps[0].trial.budget_multiplier, 3.0);
  EXPECT_EQ(plan_tune(r).sweeps[0].studies, 5);
  r.trial.budget_multiplier = 2.0;
  EXPECT_EQ(plan_tune(r).sweeps[0].trial.budget_multiplier, 2.0);
}

TEST_F(TuneRequestTest, RulesV05WithASuiteAddsTheDrawnHeldOutVariantsAndRecordsTheDraw) {
  TuneRequest r = sgd_request();
  r.workloads.clear();
  r.suite = "quick";
  r.rules = "v0.5";
  r.seed = 11;
  const std::vector<std::string> drawn = draw_held_out_variants(workload_suite("quick"), 11);
  TunePlan plan = plan_tune(r);
  EXPECT_EQ(plan.held_out, drawn);
  EXPECT_EQ(plan.held_out_seed, 11u);  // the trial seed, unless a draw seed is given
  std::vector<std::string> workloads;
  for (const auto& s : plan.sweeps) workloads.push_back(s.workload);
  std::vector<std::string> expected = workload_suite("quick");
  expected.insert(expected.end(), drawn.begin(), drawn.end());
  EXPECT_EQ(workloads, expected);
  EXPECT_EQ(plan.held_out_line(), "held-out variants (v0.5, seed 11): " + drawn.at(0));

  write_held_out_record(plan, dir_ + "/logs");
  const auto record = nlohmann::json::parse(std::ifstream(dir_ + "/logs/held_out_workloads.json"));
  EXPECT_EQ(record["rules"], "v0.5");
  EXPECT_EQ(record["seed"], "11");
  EXPECT_EQ(record["suite"], "quick");
  EXPECT_EQ(record["held_out_workloads"], nlohmann::json(drawn));

  r.held_out_seed = 3;
  plan = plan_tune(r);
  EXPECT_EQ(plan.held_out_seed, 3u);
  EXPECT_EQ(plan.held_out, draw_held_out_variants(workload_suite("quick"), 3));
  r.rules = "v0.6";  // no held-out variants under the current rules
  plan = plan_tune(r);
  EXPECT_TRUE(plan.held_out.empty());
  EXPECT_EQ(plan.held_out_line(), "");
  write_held_out_record(plan, dir_ + "/none");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/none"));
}

TEST_F(TuneRequestTest, AScientificAxisGivesOneSweepPerValueUnlessAWorkloadOptionAlsoSetsIt) {
  TuneRequest r = sgd_request();
  r.workloads = {"fmnist_mlp"};
  r.scientific = "activation=relu,tanh";
  const TunePlan plan = plan_tune(r);
  ASSERT_EQ(plan.sweeps.size(), 2u);
  EXPECT_EQ(plan.sweeps[0].experiment, "sgd@activation=relu");
  EXPECT_EQ(plan.sweeps[1].experiment, "sgd@activation=tanh");
  EXPECT_NE(plan.headline("t.db", {}).find("2 sweeps (workloads x values of activation)"), std::string::npos);
  r.trial.workload_options["activation"] = "gelu";
  EXPECT_NE(input_error_of([&] { plan_tune(r); }).find("give the values in one place"), std::string::npos);
}

// Everything that is wrong is refused before anything is written, naming what is wrong.
TEST_F(TuneRequestTest, BadRequestsAreRefusedNamingTheCulprit) {
  struct Case {
    std::function<void(TuneRequest&)> change;
    std::string fragment;
  };
  const std::vector<Case> cases = {
      {[](TuneRequest& r) { r.suite = "quick"; }, "either -w/--workload or --suite"},
      {[](TuneRequest& r) { r.workloads.clear(); }, "no workload"},
      {[](TuneRequest& r) { r.workloads = {"fmnist_mpl"}; }, "fmnist_mpl"},
      {[](TuneRequest& r) { r.suite = "smal", r.workloads.clear(); }, "smal"},
      {[](TuneRequest& r) { r.algorithm = "adamm"; }, "adamm"},
      {[](TuneRequest& r) { r.rules = "v0.7"; }, "v0.7"},
      {[](TuneRequest& r) { r.sampler = "sobol"; }, "sobol"},
      {[](TuneRequest& r) { r.space_file.clear(); }, "--space"},
      {[](TuneRequest& r) { r.space_file = "/no/such/space.json"; }, "/no/such/space.json"},
      {[](TuneRequest& r) { r.scientific = "activation=relu"; }, "activation"},
  };
  // Without --space a request falls back on spaces/<algorithm>.json relative to the working
  // directory (tune_cli_test covers that); from a folder without one, "--space" must be asked for,
  // whichever directory the suite is started in (CI's sanitizer stage starts it at the root).
  const std::filesystem::path started_in = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  for (size_t i = 0; i < cases.size(); ++i) {
    TuneRequest r = sgd_request();
    cases[i].change(r);
    const std::string message = input_error_of([&] { plan_tune(r); });
    EXPECT_NE(message.find(cases[i].fragment), std::string::npos) << "case " << i << ": " << message;
  }
  std::filesystem::current_path(started_in);
  // Malformed spaces (search_space_test has every case of the reader): the file and the key named.
  const std::vector<std::pair<std::string, std::string>> spaces = {
      {R"({"learning_rate": {"min": 0.5, "max": 0.1, "scaling": "log"}})", "learning_rate"},
      {R"({"learning_rat": {"min": 0.01, "max": 0.1, "scaling": "log"}})", "learning_rat"},
      {R"({"learning_rate": {"min": 0.01, "max": 1000, "scaling": "log"}})", "learning_rate"},
      {R"({"learning_rate": {"min": 0.01, "max": 0.1)", "space.json"},
  };
  for (const auto& [json, fragment] : spaces) {
    TuneRequest r = sgd_request();
    r.space_file = write("space.json", json);
    const std::string message = input_error_of([&] { plan_tune(r); });
    EXPECT_NE(message.find(fragment), std::string::npos) << json << ": " << message;
  }
}

// The self-tuning budget is the rules preset's, as in tune and board: x1.5 under v0.6, x3 under
// v0.5; a budget multiplier given wins. A results folder is written once: a second run into it
// is refused before any step, --overwrite replaces it.
TEST_F(TuneRequestTest, ARunsSelfTuningBudgetIsTheRulesPresetsAndItsFolderIsWrittenOnce) {
  const auto run = [&](const std::string& rules, std::optional<double> multiplier, const std::string& out) {
    RunRequest r;
    r.workload = "synthetic_regression";
    r.algorithm = algorithm_reference("sgd");
    r.self_tuning = true;
    r.rules = rules;
    r.spec.budget_multiplier = multiplier;
    r.spec.max_steps = 5;
    r.quiet = true;
    r.out_dir = out;
    return r;
  };
  const double base = workload_spec("synthetic_regression").time_budget;
  EXPECT_DOUBLE_EQ(run_one_trial(run("", std::nullopt, "")).result.time_budget, base * 1.5);
  EXPECT_DOUBLE_EQ(run_one_trial(run("v0.6", std::nullopt, "")).result.time_budget, base * 1.5);
  EXPECT_DOUBLE_EQ(run_one_trial(run("v0.5", std::nullopt, "")).result.time_budget, base * 3.0);
  EXPECT_DOUBLE_EQ(run_one_trial(run("v0.5", 2.0, "")).result.time_budget, base * 2.0);
  EXPECT_NE(input_error_of([&] { run_one_trial(run("v0.4", std::nullopt, "")); }).find("v0.4"), std::string::npos);

  const std::string out = dir_ + "/run";
  const RunOutcome first = run_one_trial(run("", std::nullopt, out));
  EXPECT_EQ(first.result.steps, 5);
  EXPECT_EQ(first.rank, 0);
  EXPECT_EQ(first.workload.name, "synthetic_regression");
  ASSERT_TRUE(std::filesystem::exists(out + "/trial.json"));
  const auto written = std::filesystem::last_write_time(out + "/trial.json");
  EXPECT_NE(input_error_of([&] { run_one_trial(run("", std::nullopt, out)); }).find(out), std::string::npos);
  EXPECT_EQ(std::filesystem::last_write_time(out + "/trial.json"), written);  // untouched
  RunRequest again = run("", std::nullopt, out);
  again.existing = ExistingResults::overwrite;
  EXPECT_EQ(run_one_trial(again).result.steps, 5);
}

// A process that runs only one trial (tune's trial processes, pacer run's contained copy) may take
// 4 budgets and 2 minutes of wall time: the budget leaves out evals, start-up and data loading.
TEST(ContainedTrialLimit, IsFourBudgetsAndTwoMinutesOfTheTrialsOwnBudget) {
  const WorkloadSpec workload = workload_spec("synthetic_regression");
  TrialSpec spec;
  EXPECT_DOUBLE_EQ(spec.process_limit_sec(workload), 4.0 * workload.time_budget + 120.0);
  spec.budget_multiplier = 1.5;
  EXPECT_DOUBLE_EQ(spec.process_limit_sec(workload), 4.0 * 1.5 * workload.time_budget + 120.0);
  spec.time_budget = 10.0;  // a budget given wins over the multiplier
  EXPECT_DOUBLE_EQ(spec.process_limit_sec(workload), 160.0);
}

TEST_F(TuneRequestTest, ATunesSummaryNamesEachStudyAndSaysWhetherEveryTrialFinished) {
  TuneRequest r = sgd_request();
  r.studies = 2;
  r.trials = 2;
  const TunePlan plan = plan_tune(r);
  StudyStore store(dir_ + "/tune.db");
  const std::vector<StudyRecord> studies = plan_sweeps(store, plan.sweeps);
  const TuneSummary text = summarize_tune(store, studies, /*json=*/false);
  EXPECT_FALSE(text.finished);  // planned, none run
  EXPECT_NE(text.text.find("sgd / synthetic_regression"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("study 2"), std::string::npos) << text.text;
  const TuneSummary json = summarize_tune(store, studies, /*json=*/true);
  EXPECT_FALSE(json.finished);
  const auto parsed = nlohmann::json::parse(json.text);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed.at(0).at("studies").size(), 2u) << json.text;
  EXPECT_TRUE(summarize_tune(store, {}, false).finished);  // nothing asked, nothing left
}

TEST(StoreOverheadLine, SaysWhatTheStoreCostAgainstTheTrialsAndNothingWithoutTrials) {
  WorkerReport report;
  EXPECT_EQ(store_overhead_line(report), "");
  report.trials_run = 3;
  report.trial_seconds = 20.0;
  report.store_seconds = 0.01;
  report.store_calls = 40;
  report.evals_recorded = 39;
  EXPECT_EQ(store_overhead_line(report),
            "store overhead: 40 calls, 10.0 ms in total, 0.050% of 20.0 s of trials (39 evals recorded)\n");
}

// The shipped spaces, wherever the test runs from (CTest runs it in the build tree).
BoardRequest board_request() {
  BoardRequest r;
  r.spaces_dir = std::string(PACER_SOURCE_DIR) + "/spaces";
  return r;
}

TEST(BoardSetup, ByDefaultEveryBuiltInThroughTheBoardSuiteSelfExternalAndOneRerun) {
  BoardRequest r = board_request();
  BoardSetup setup = make_board_setup(r);
  EXPECT_EQ(setup.spec.algorithms, algorithm_names());
  EXPECT_EQ(setup.names, algorithm_names());
  EXPECT_EQ(setup.spec.workloads, workload_suite("board"));
  EXPECT_TRUE(setup.spec.self_tuning);
  EXPECT_TRUE(setup.spec.external);
  EXPECT_EQ(setup.spec.reruns, 1);
  EXPECT_EQ(setup.spec.studies, 3);
  EXPECT_EQ(setup.spec.trials, kDefaultTrialsPerStudy);
  EXPECT_EQ(setup.spec.external_trial.budget_multiplier, 1.0);
  EXPECT_EQ(setup.spec.self_trial.budget_multiplier, 1.5);
  EXPECT_FALSE(setup.against.has_value());

  r.rules = "v0.5";
  r.algorithms = {"adamw"};
  r.suite = "quick";
  r.rulesets = std::vector<std::string>{"external"};
  r.name = "adamw_mine";
  setup = make_board_setup(r);
  EXPECT_EQ(setup.spec.studies, 5);
  EXPECT_EQ(setup.spec.self_trial.budget_multiplier, 3.0);
  EXPECT_EQ(setup.spec.workloads, workload_suite("quick"));
  EXPECT_FALSE(setup.spec.self_tuning);
  EXPECT_EQ(setup.names, std::vector<std::string>{"adamw_mine"});
  r.rulesets = std::vector<std::string>{"self"};
  EXPECT_EQ(make_board_setup(r).spec.reruns, 0);  // reruns are external runs
  r.trial.budget_multiplier = 2.0;
  EXPECT_EQ(make_board_setup(r).spec.self_trial.budget_multiplier, 2.0);
}

TEST(BoardSetup, BadRequestsAreRefusedNamingTheCulprit) {
  const std::vector<std::pair<std::function<void(BoardRequest&)>, std::string>> cases = {
      {[](BoardRequest& r) { r.algorithms = {"adamw", "adamm"}; }, "adamm"},
      {[](BoardRequest& r) { r.suite = "smal"; }, "smal"},
      {[](BoardRequest& r) { r.rulesets = std::vector<std::string>{"internal"}; }, "internal"},
      {[](BoardRequest& r) { r.rules = "v0.7"; }, "v0.7"},
      {[](BoardRequest& r) { r.name = "mine"; }, "--name names one algorithm"},
      {[](BoardRequest& r) { r.spaces = {"adamw"}; }, "--space 'adamw'"},
      {[](BoardRequest& r) { r.spaces_dir = "/no/such/spaces"; }, "/no/such/spaces"},
      {[](BoardRequest& r) { r.algorithms.clear(), r.against = {"/no/such/board.db"}; }, "-a"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    BoardRequest r = board_request();
    r.algorithms = {"adamw", "nadamw"};
    cases[i].first(r);
    const std::string message = input_error_of([&] { make_board_setup(r); });
    EXPECT_NE(message.find(cases[i].second), std::string::npos) << "case " << i << ": " << message;
  }
}

// A newcomer named as one of the --against board's algorithms is refused before any trial runs
// (once it was refused only when the outputs were scored), and it takes the board's studies and
// trials per study (its slots) unless told otherwise.
TEST(BoardSetup, ANewcomerWhoseNameTheBoardHoldsIsRefusedBeforeAnyTrialAndTakesTheBoardsCounts) {
  const std::string dir = ::testing::TempDir() + "/against_board_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  for (int study = 0; study < 2; ++study)
    for (int trial = 0; trial < 4; ++trial) {
      const std::string folder = dir + "/adamw/study_" + std::to_string(study) + "/synthetic_regression_libtorch/trial_" +
                                 std::to_string(trial);
      std::filesystem::create_directories(folder);
      std::ofstream(folder + "/eval_measurements.csv") << "global_step,score,validation/loss\n10,0.1,0.5\n";
    }
  BoardRequest r = board_request();
  r.algorithms = {"adamw"};
  r.workloads = {"synthetic_regression"};
  r.against = {dir + "/adamw"};
  const std::string message = input_error_of([&] { make_board_setup(r); });
  EXPECT_NE(message.find("'adamw' is on the board given with --against too"), std::string::npos) << message;
  r.name = "adamw_mine";
  const BoardSetup setup = make_board_setup(r);
  EXPECT_EQ(setup.spec.studies, 2);
  EXPECT_EQ(setup.spec.trials, 4);
  std::filesystem::remove_all(dir);
}

TEST(BoardHeadline, SaysTheBoardsSizeItsPartsWhatTheStoreHoldsAndTheEstimatePerWorker) {
  BoardSetup setup;
  setup.spec.algorithms = {"adamw", "lion"};
  setup.spec.workloads = {"fmnist_mlp", "synthetic_regression", "fortunes_lm"};
  setup.spec.studies = 3;
  setup.spec.trials = 5;
  BoardPlan plan;
  plan.parts = {{"self", Ruleset::self, 0}, {"external", Ruleset::external, 0}, {"rerun1", Ruleset::external, 1}};
  BoardProgress before;
  before.done = 120;
  before.total = 2475;
  before.remaining_trial_sec = 4 * 3600.0;
  EXPECT_EQ(board_headline(setup, plan, before, "runs/board.db", 2),
            "pacer board: 2 algorithms x 3 workloads, parts: self external rerun1; 3 studies x 5 trials (external); "
            "store runs/board.db: 120 of 2475 trials done; estimated 4h00m of trial time left (2h00m with 2 workers)");
  // An earlier run made the studies bigger: the header says what the tables will score.
  StudyRecord grown;
  grown.ruleset = "external";
  grown.planned_trials = 7;
  plan.phases.push_back({"external, study 1 of 3", {grown}});
  EXPECT_NE(board_headline(setup, plan, before, "runs/board.db", 2)
                .find("3 studies x 5 trials asked (external; the store's studies hold 7 from an earlier run, and all are "
                      "scored); store"),
            std::string::npos);
}

TEST(BoardProgressLine, SaysDoneRunningStoppedElapsedAndTheEstimateSharedOverTheWorkers) {
  BoardProgress p;
  p.done = 120;
  p.total = 2475;
  p.running = 2;
  p.stopped = 9;
  p.remaining_trial_sec = 4 * 3600.0;
  EXPECT_EQ(board_progress_line(p, 3720.0, 2),
            "board: 120/2475 trials done (4.8%; 9 stopped by racing), 2 running; 1h02m elapsed; ETA 2h00m");
  p.stopped = 0;
  EXPECT_EQ(board_progress_line(p, 41.0, 0),
            "board: 120/2475 trials done (4.8%), 2 running; 41s elapsed; ETA 4h00m");
  EXPECT_EQ(board_unfinished_line(p, "interrupted"),
            "pacer board: interrupted with 120 of 2475 trials done (4h00m of trial time left); run the same command "
            "again to continue");
}

// What the outputs of a board hold before any trial is scored: board.md and step_costs.csv, and no
// stability.json of an earlier run (it would no longer match board.md); no part folders.
TEST(BoardOutputs, AreWrittenFromWhatTheStoreHoldsAndAStaleStabilityFileIsRemoved) {
  namespace fs = std::filesystem;
  const std::string out = (fs::temp_directory_path() / "pacer_board_outputs_test").string();
  fs::remove_all(out);
  fs::create_directories(out);
  std::ofstream(out + "/stability.json") << "{}";
  BoardResults results;
  results.progress.total = 10;
  results.parts.push_back(BoardPartScores{});
  results.parts.back().part.name = "external";
  const std::string wrote = write_board_outputs(results, out);
  EXPECT_EQ(wrote.rfind("wrote " + out + "/board.md, step_costs.csv and, per part, ", 0), 0u) << wrote;
  EXPECT_TRUE(fs::exists(out + "/board.md"));
  EXPECT_TRUE(fs::exists(out + "/step_costs.csv"));
  EXPECT_FALSE(fs::exists(out + "/stability.json"));
  EXPECT_FALSE(fs::exists(out + "/external"));  // nothing scored yet
  std::ifstream md(out + "/board.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, results.markdown());
  fs::remove_all(out);
}

// What a command takes from a contained process's description of a submission (algorithms/
// algorithm_declarations.h), without importing it: only the name the file's own name gives, and
// declarations that hold together; a description that is not one, or names another algorithm, is
// bad input; once declared, the file is not described again.
TEST(AlgorithmDeclarations, OnlyTheFilesOwnNameAndValidDeclarationsAreTaken) {
  char folder_template[] = "/tmp/pacer_declared_XXXXXX";
  ASSERT_NE(::mkdtemp(folder_template), nullptr);
  const std::string folder = folder_template, file = folder + "/declared_by_test.py";
  std::ofstream(file) << "raise SystemExit('never imported here')\n";
  std::ofstream(folder + "/tuning_search_space.json") << R"({"learning_rate": {"min": 0.001, "max": 0.1}})";
  const auto description = [](const std::string& name, const std::string& hyperparameter_min) {
    return R"({"files": [{"value": "x", "algorithms": [{"name": ")" + name + R"(", "description": "d", "plugin": null,
      "hyperparameters": [{"name": "learning_rate", "default": null, "min": )" + hyperparameter_min + R"(, "max": null,
      "min_excluded": false, "max_excluded": false, "description": "from the space"}]}]}]})";
  };
  const auto refused = [&](const std::string& text) {
    try {
      pacer::declare_algorithm_files({file}, [&](const std::vector<std::string>&) { return text; });
    } catch (const pacer::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(refused("not json").find("wrote no valid description"), std::string::npos);
  EXPECT_NE(refused(std::string(100, '[')).find("wrote no valid description"), std::string::npos);
  EXPECT_NE(refused(description("sgd", "null")).find("not 'declared_by_test.py'"), std::string::npos);
  EXPECT_NE(refused(R"({"files": [{"algorithms": [{"name": 3}]}]})").find("malformed"), std::string::npos);
  int described = 0;
  pacer::declare_algorithm_files({file}, [&](const std::vector<std::string>& files) {
    ++described;
    EXPECT_EQ(files, std::vector<std::string>{file});
    return description("declared_by_test.py", "null");
  });
  const pacer::AlgorithmInfo info = pacer::algorithm_info("declared_by_test.py");
  ASSERT_EQ(info.hyperparameters.size(), 1u);
  EXPECT_EQ(info.hyperparameters[0].name, "learning_rate");
  const pacer::LoadedPlugin* record = pacer::plugin_of("declared_by_test.py");
  ASSERT_NE(record, nullptr);
  EXPECT_TRUE(record->python);
  EXPECT_EQ(record->search_space, folder + "/tuning_search_space.json");
  pacer::declare_algorithm_files({file}, [&](const std::vector<std::string>&) {
    ++described;
    return std::string();
  });
  EXPECT_EQ(described, 1);  // declared once
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace pacer
