// End-to-end tests of the `pacer` command line: exit codes (0 success, 2 bad input or usage) and
// the messages users see, plus one short real run and the files it writes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/torch_runtime.h"
#include "support/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using pacer::testing::CliResult;
using pacer::testing::read_file;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "lacks \"" << (needle) << "\" in:\n" << (haystack)

class CliTest : public pacer::testing::CliFixture {
 protected:
  // Expects exit code 2 with a message on stderr containing each of `needles`.
  void expect_input_error(const std::string& args, const std::vector<std::string>& needles) const {
    SCOPED_TRACE("pacer " + args);
    const CliResult r = pacer(args);
    EXPECT_EQ(r.code, 2) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
    for (const auto& needle : needles) EXPECT_CONTAINS(r.err, needle);
  }

};

TEST_F(CliTest, ListShowsWorkloadsAlgorithmsAndHyperparameters) {
  const CliResult r = pacer("list");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"fmnist_mlp", "fmnist_cnn", "synthetic_regression", "nadamw", "adamw", "sgd",
                           "learning_rate", "beta2", "weight_decay"}) {
    EXPECT_CONTAINS(r.out, name);
  }
  const CliResult algorithms = pacer("list algorithms");
  EXPECT_EQ(algorithms.code, 0);
  EXPECT_CONTAINS(algorithms.out, "nadamw");
  EXPECT_EQ(algorithms.out.find("fmnist_cnn"), std::string::npos) << "list algorithms should not list workloads";
  EXPECT_EQ(pacer("list nonsense").code, 2);

  // --json: the same facts for programs.
  const CliResult json = pacer("list --json");
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  bool found_cnn = false;
  for (const auto& w : j.at("workloads")) {
    if (w.at("name") != "fmnist_cnn") continue;
    found_cnn = true;
    EXPECT_EQ(w.at("metric"), "accuracy");
    EXPECT_EQ(w.at("goal"), "maximize");
    EXPECT_GT(w.at("validation_target").get<double>(), 0.9);
    EXPECT_GT(w.at("time_budget").get<double>(), 0.0);
  }
  EXPECT_TRUE(found_cnn);
  EXPECT_FALSE(j.at("suites").empty());
  const auto only = nlohmann::json::parse(pacer("list -a adamw --json").out);
  EXPECT_FALSE(only.contains("workloads"));
  ASSERT_EQ(only.at("algorithms").size(), 1u);
  bool found_lr = false;
  for (const auto& hp : only["algorithms"][0].at("hyperparameters")) {
    if (hp.at("name") != "learning_rate") continue;
    found_lr = true;
    EXPECT_TRUE(hp.at("default").is_number()) << hp;
    EXPECT_EQ(hp.at("min"), 0.0) << hp;  // the declared range, as `pacer list` prints it
    EXPECT_EQ(hp.at("max"), 10.0) << hp;
  }
  EXPECT_TRUE(found_lr);
}

TEST_F(CliTest, NoSubcommandIsAUsageError) { EXPECT_EQ(pacer("").code, 2); }

TEST_F(CliTest, RunHelpExitsZero) {
  const CliResult r = pacer("run --help");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "--workload");
  EXPECT_CONTAINS(r.out, "--set");
}

TEST_F(CliTest, UnknownWorkloadListsValidOnes) {
  expect_input_error("run -w nope -a nadamw -q",
                     {"pacer: error:", "nope", "fmnist_mlp", "fmnist_cnn", "synthetic_regression"});
}

// Refused before --out is made: a mistyped name leaves no folder behind.
TEST_F(CliTest, UnknownAlgorithmListsValidOnes) {
  expect_input_error("run -w synthetic_regression -a nope -q -o '" + dir_ + "/run'",
                     {"pacer: error:", "nope", "nadamw", "sgd"});
  EXPECT_FALSE(fs::exists(dir_ + "/run"));
}

TEST_F(CliTest, NonNumericSetValueNamesTheHyperparameter) {
  expect_input_error("run -w synthetic_regression -a nadamw --set learning_rate=abc -q",
                     {"pacer: error:", "learning_rate", "abc"});
}

TEST_F(CliTest, MalformedSetIsAnError) {
  expect_input_error("run -w synthetic_regression -a nadamw --set learning_rate -q", {"pacer: error:", "name=value"});
}

TEST_F(CliTest, UnknownHyperparameterIsNamed) {
  expect_input_error("run -w synthetic_regression -a nadamw --set bogus=1 -q",
                     {"pacer: error:", "bogus", "learning_rate"});
}

TEST_F(CliTest, OutOfRangeHyperparameterIsNamed) {
  expect_input_error("run -w synthetic_regression -a nadamw --set beta2=2 -q", {"pacer: error:", "beta2"});
}

TEST_F(CliTest, MalformedHparamsFileIsNamed) {
  const std::string file = dir_ + "/broken.json";
  std::ofstream(file) << "{\"learning_rate\": 0.01,,}";
  expect_input_error("run -w synthetic_regression -a nadamw --hparams '" + file + "' -q", {"pacer: error:", file});
  const std::string missing = dir_ + "/missing.json";
  expect_input_error("run -w synthetic_regression -a nadamw --hparams '" + missing + "' -q", {"pacer: error:", missing});
}

TEST_F(CliTest, SelfTuningRejectsHyperparameters) {
  expect_input_error("run -w synthetic_regression -a nadamw --self-tuning --set learning_rate=0.1 -q",
                     {"pacer: error:", "--self-tuning"});
}

// The self-tuning budget under each rules preset is run_one_trial's, tested in process
// (tune_use_cases_test.cpp); here the binding: --rules reaches it, and without --self-tuning it warns.
TEST_F(CliTest, RulesReachASelfTuningRunAndWarnWithoutOne) {
  const std::string run = "run -w synthetic_regression -a sgd --self-tuning --max-steps 5 -q";
  auto r = pacer(run + " --rules v0.5 --out '" + dir_ + "/self05'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(read_file(dir_ + "/self05/trial.json").find("\"time_budget\": 3"), std::string::npos);
  expect_input_error(run + " --rules v0.4", {"pacer: error:", "v0.4"});
  r = pacer("run -w synthetic_regression -a sgd --rules v0.5 --max-steps 5 -q");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--rules sets only --self-tuning's budget multiplier"), std::string::npos) << r.err;
}

TEST_F(CliTest, MissingRequiredOptionIsAUsageError) {
  expect_input_error("run -w synthetic_regression", {"--algorithm"});
  expect_input_error("run -a nadamw", {"--workload"});
}

TEST_F(CliTest, InvalidOptionValuesAreUsageErrors) {
  expect_input_error("run -w synthetic_regression -a nadamw --max-steps 0 -q", {"--max-steps"});
  expect_input_error("run -w synthetic_regression -a nadamw --no-such-flag -q", {"--no-such-flag"});
}

TEST_F(CliTest, BadDeviceIsAnInputError) {
  expect_input_error("run -w synthetic_regression -a nadamw --device tpu --max-steps 1 -q",
                     {"pacer: error:", "--device tpu"});
  if (pacer::cuda_available()) GTEST_SKIP() << "CUDA is available: --device cuda is valid here";
  expect_input_error("run -w synthetic_regression -a nadamw --device cuda --max-steps 1 -q",
                     {"pacer: error:", "--device cuda"});
}

TEST_F(CliTest, MissingDataDirNamesTheFile) {
  expect_input_error("run -w fmnist_mlp -a nadamw --data-dir /nonexistent --device cpu --max-steps 1 -q",
                     {"pacer: error:", "/nonexistent/train-images-idx3-ubyte.gz"});
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(line);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

TEST_F(CliTest, ShortSyntheticRunWritesItsResults) {
  const std::string out = dir_ + "/run";
  const CliResult r = pacer("run -w synthetic_regression -a nadamw --seed 3 --set learning_rate=0.01 "
                            "--max-steps 20 --eval-every 10 --device cpu --threads 1 -q --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  EXPECT_CONTAINS(r.out, "status:");

  for (const char* file : {"hparams.json", "meta_data_0.json", "eval_measurements.csv", "trial.json"}) {
    EXPECT_TRUE(fs::exists(out + "/" + file)) << file;
  }
  // No temporary files from the atomic writes are left behind.
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }

  // hparams.json: the resolved point, defaults filled in, the --set value kept.
  const auto hparams = nlohmann::json::parse(read_file(out + "/hparams.json"));
  ASSERT_TRUE(hparams.is_object());
  EXPECT_DOUBLE_EQ(hparams.at("learning_rate").get<double>(), 0.01);
  EXPECT_TRUE(hparams.contains("beta2"));

  const auto meta = nlohmann::json::parse(read_file(out + "/meta_data_0.json"));
  EXPECT_EQ(meta.at("workload.name"), "synthetic_regression");
  EXPECT_EQ(meta.at("algorithm"), "nadamw");
  EXPECT_EQ(meta.at("rng_seed"), 3);
  EXPECT_EQ(nlohmann::json::parse(read_file(out + "/trial.json")).at("seed"), "3");  // seeds are strings in Pacer's JSON

  // eval_measurements.csv: AlgoPerf's sorted columns; evals after step 1, then every 10 steps.
  std::stringstream csv(read_file(out + "/eval_measurements.csv"));
  std::string header;
  ASSERT_TRUE(std::getline(csv, header));
  EXPECT_EQ(header.rfind("accumulated_eval_time", 0), 0u) << header;
  const auto columns = split(header, ',');
  auto column = [&](const std::string& name) -> int {
    for (size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return static_cast<int>(i);
    ADD_FAILURE() << "no column " << name << " in " << header;
    return -1;
  };
  const int step_col = column("global_step");
  column("score");
  const int loss_col = column("validation/loss");
  ASSERT_GE(step_col, 0);
  ASSERT_GE(loss_col, 0);
  std::vector<std::string> steps;
  std::string line;
  while (std::getline(csv, line)) {
    if (line.empty()) continue;
    const auto cells = split(line, ',');
    ASSERT_EQ(cells.size(), columns.size()) << line;
    steps.push_back(cells[static_cast<size_t>(step_col)]);
    EXPECT_GT(std::stod(cells[static_cast<size_t>(loss_col)]), 0.0) << line;
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"1", "10", "20"}));

  const auto trial = nlohmann::json::parse(read_file(out + "/trial.json"));
  EXPECT_EQ(trial.at("steps"), 20);
  ASSERT_TRUE(trial.contains("status"));
  EXPECT_TRUE(trial.at("status").is_string());
  EXPECT_NE(trial.at("status"), "failed");
  EXPECT_EQ(trial.at("stop_reason"), "max_steps");
  EXPECT_EQ(trial.at("workload"), "synthetic_regression");
  EXPECT_EQ(trial.at("algorithm"), "nadamw");
  EXPECT_EQ(trial.at("num_evals"), 3);
}

// --eval-splits: only the named splits are measured (cheaper evals); validation decides time to
// target, so leaving it out needs --ignore-targets; unknown names are refused.
TEST_F(CliTest, EvalSplitsChooseWhatEachEvalMeasures) {
  const std::string out = dir_ + "/splits";
  const CliResult r = pacer("run -w synthetic_regression -a nadamw --max-steps 4 --eval-every 2 --eval-splits validation "
                            "--threads 1 -q --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string csv = read_file(out + "/eval_measurements.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_CONTAINS(header, "validation/loss");
  EXPECT_EQ(header.find("test/"), std::string::npos) << header;
  EXPECT_EQ(header.find("train/loss"), std::string::npos) << header;
  expect_input_error("run -w synthetic_regression -a nadamw --max-steps 1 --eval-splits test -q",
                     {"--eval-splits", "validation", "--ignore-targets"});
  expect_input_error("run -w synthetic_regression -a nadamw --max-steps 1 --eval-splits validation,tset -q",
                     {"--eval-splits", "tset"});
  const std::string ignored = dir_ + "/splits_test";
  EXPECT_EQ(pacer("run -w synthetic_regression -a nadamw --max-steps 2 --eval-splits test --ignore-targets --threads 1 "
                  "-q --out '" + ignored + "'").code, 0);
}

// --goal/--metric: the run ends at the first eval past a goal of one's own instead of at the
// targets; the summary says whether and where it was reached; a goal no eval measures is refused.
TEST_F(CliTest, AGoalOfOnesOwnEndsTheRunAtTheFirstEvalPastIt) {
  const std::string reached = dir_ + "/goal";
  const CliResult r = pacer("run -w synthetic_regression -a nadamw --max-steps 40 --eval-every 10 --metric validation/loss "
                            "--goal 1e9 --threads 1 -q --out '" + reached + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "goal:                validation/loss < 1e+09: reached at step 1");
  auto trial = nlohmann::json::parse(read_file(reached + "/trial.json"));
  EXPECT_EQ(trial.at("stop_reason"), "goal_reached");
  EXPECT_EQ(trial.at("steps"), 1);

  const std::string missed = dir_ + "/goal_missed";
  const CliResult m = pacer("run -w synthetic_regression -a nadamw --max-steps 20 --eval-every 10 --metric train/loss "
                            "--goal 0 --threads 1 -q --out '" + missed + "'");
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_CONTAINS(m.out, "goal:                train/loss < 0: not reached");
  trial = nlohmann::json::parse(read_file(missed + "/trial.json"));
  EXPECT_EQ(trial.at("stop_reason"), "max_steps");
  EXPECT_EQ(trial.at("steps"), 20);

  expect_input_error("run -w synthetic_regression -a nadamw --max-steps 1 --metric validation/accuracy --goal 0.5 -q",
                     {"--metric validation/accuracy", "reports no 'accuracy'"});
  expect_input_error("run -w synthetic_regression -a nadamw --max-steps 1 --metric test/loss --goal 1 "
                     "--eval-splits validation -q",
                     {"--metric test/loss", "--eval-splits leaves out test"});
  expect_input_error("run -w synthetic_regression -a nadamw --max-steps 1 --goal -1 -q", {"--goal -1", "never negative"});
}

// Without --threads: OMP_NUM_THREADS when set, else the machine's CPUs shared by the processes on it.
TEST_F(CliTest, DefaultThreadsAreTheMachinesCpusSharedByTheLocalRanks) {
  const int cpus = pacer::available_cpus();
  const char* omp = std::getenv("OMP_NUM_THREADS");  // the sanitizer runs pin it
  const std::string saved = omp ? omp : "";
  ::unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(pacer::set_num_threads(0, 1), cpus);
  EXPECT_EQ(pacer::set_num_threads(0, 2), std::max(1, cpus / 2));
  EXPECT_EQ(pacer::set_num_threads(0, 4 * cpus), 1);
  ::setenv("OMP_NUM_THREADS", "3", 1);
  EXPECT_EQ(pacer::set_num_threads(0, 2), 3);
  EXPECT_EQ(pacer::set_num_threads(1, 2), 1);  // --threads wins
  if (omp) ::setenv("OMP_NUM_THREADS", saved.c_str(), 1); else ::unsetenv("OMP_NUM_THREADS");
  pacer::set_num_threads(1);

  const std::string out = dir_ + "/threads";
  ASSERT_EQ(pacer("run -w synthetic_regression -a nadamw --max-steps 1 -q --out '" + out + "'").code, 0);
  const int expected = omp && std::atoi(omp) > 0 ? std::atoi(omp) : cpus;
  EXPECT_EQ(nlohmann::json::parse(read_file(out + "/meta_data_0.json")).at("num_threads"), expected);
}


}  // namespace

// --clock cpu: the run's submission time is this process's CPU time, recorded in meta_data_0.json
// and trial.json; `pacer score` refuses to rank it beside wall-clock runs, and takes it alone.
TEST_F(CliTest, CpuClockIsRecordedAndNeverRankedBesideTheWallClock) {
  const std::string common = "run -w synthetic_regression -a nadamw --seed 3 --set learning_rate=0.01 "
                             "--max-steps 20 --eval-every 10 --device cpu --threads 1 -q --out ";
  const std::string wall = dir_ + "/clocks/wall", cpu = dir_ + "/clocks/cpu";
  CliResult r = pacer(common + "'" + wall + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(wall + "/meta_data_0.json")).at("submission_clock"), "wall");
  r = pacer(common + "'" + cpu + "' --clock cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(cpu + "/meta_data_0.json")).at("submission_clock"), "cpu");
  EXPECT_EQ(nlohmann::json::parse(read_file(cpu + "/trial.json")).at("clock"), "cpu");

  r = pacer("score '" + wall + "' '" + cpu + "'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_CONTAINS(r.err, "different clocks");
  EXPECT_CONTAINS(r.err, "cpu clock: " + cpu);
  r = pacer("score '" + cpu + "' --out '" + dir_ + "/clocks/board'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "cpu clock");
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ + "/clocks/board/scores.json")).at("clock"), "cpu");
  // Another thread count on the cpu clock: ranked, with a warning naming both counts.
  const std::string cpu2 = dir_ + "/clocks/cpu2";
  r = pacer("run -w synthetic_regression -a nadamw --seed 3 --set learning_rate=0.01 --max-steps 20 --eval-every 10 "
            "--device cpu --threads 2 -q --clock cpu --out '" + cpu2 + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(cpu2 + "/trial.json")).at("threads"), 2);
  EXPECT_EQ(nlohmann::json::parse(read_file(cpu2 + "/trial.json")).at("device"), "cpu");
  r = pacer("score '" + cpu + "' '" + cpu2 + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.err, "different intra-op thread counts (1 thread: ");
  EXPECT_CONTAINS(r.err, "; 2 threads: ");

  expect_input_error(common + "'" + dir_ + "/clocks/bad' --clock gpu", {"--clock", "gpu"});
}
