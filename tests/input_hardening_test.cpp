// Bad input from the command line: every input error is one line `pacer: error: ...` with exit
// 2, before any work; NaN, infinities, negative seeds and runaway resource counts are refused;
// earlier results and stores are never overwritten, turned into something else or read damaged;
// hyperparameters that make an update undefined are out of range.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/hyperparameters.h"
#include "core/json_input.h"
#include "store/study_store.h"
#include "support/cli_runner.h"

namespace pacer {
namespace {

class HardeningCliTest : public testing::CliFixture {
 protected:
  // Exit 2 and exactly one line on stderr that starts "pacer: error:" and contains `needle`.
  void expect_input_error(const std::string& args, const std::string& needle) {
    const auto r = pacer(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("pacer: error: ", 0), 0u) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  }
  const std::string quick_ = " -w synthetic_regression -a sgd --max-steps 5 --eval-every 5 --threads 1 -q";
};

TEST_F(HardeningCliTest, NonFiniteNumbersNegativeSeedsAndRunawayCountsAreRefused) {
  expect_input_error("run" + quick_ + " --budget nan", "not a finite number");
  expect_input_error("run" + quick_ + " --budget inf", "not a finite number");
  expect_input_error("tune -w synthetic_regression -a sgd --ruleset self --lease nan --store '" + dir_ + "/s.db'",
                     "not a finite number");
  expect_input_error("run" + quick_ + " --seed -1", "negative");
  expect_input_error("run -w synthetic_regression -a sgd --threads 100000", "--threads");
  expect_input_error("tune -w synthetic_regression -a sgd --ruleset self --workers 1000 --store '" + dir_ + "/s.db'",
                     "--workers");
  expect_input_error("tune -w synthetic_regression -a sgd --ruleset self --studies 5000 --store '" + dir_ + "/s.db'",
                     "--studies");
  expect_input_error("tune -w synthetic_regression -a sgd --space spaces/sgd.json --trials 2000000000 --store '" +
                         dir_ + "/s.db'",
                     "--trials");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/s.db"));  // nothing was written
  expect_input_error("probe --stability -w synthetic_regression -a sgd --lr-factor nan", "not a finite number");
}

TEST_F(HardeningCliTest, UsageErrorsAreOneLineNamingTheCulprit) {
  expect_input_error("frobnicate", "unknown command 'frobnicate'");
  expect_input_error("run -w synthetic_regression", "--algorithm");
  expect_input_error("run" + quick_ + " --max-steps -3", "--max-steps");
}

TEST_F(HardeningCliTest, RunNeverOverwritesAnEarlierResultUnlessAsked) {
  const std::string out = dir_ + "/result";
  ASSERT_EQ(pacer("run" + quick_ + " --out '" + out + "'").code, 0);
  const std::string first = testing::read_file(out + "/trial.json");
  expect_input_error("run" + quick_ + " --seed 3 --out '" + out + "'", "--overwrite");
  EXPECT_EQ(testing::read_file(out + "/trial.json"), first);  // untouched
  std::ofstream(out + "/notes.txt") << "mine";
  const auto again = pacer("run" + quick_ + " --seed 3 --overwrite --out '" + out + "'");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(testing::read_file(out + "/trial.json"), first);
  EXPECT_EQ(testing::read_file(out + "/notes.txt"), "mine");  // only Pacer's own files are replaced
  std::ofstream(dir_ + "/a_file") << "x";
  expect_input_error("run" + quick_ + " --out '" + dir_ + "/a_file'", "is a file");
  expect_input_error("run" + quick_ + " --overwrite --resume --out '" + out + "'", "one of them");
}

TEST_F(HardeningCliTest, ReadOnlyCommandsNeverTurnAFileIntoAStoreAndDamagedStoresAreRefused) {
  const std::string empty = dir_ + "/empty.db";
  std::ofstream(empty).close();
  expect_input_error("study list '" + empty + "'", "not a pacer study store");
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
  const std::string text = dir_ + "/notes.txt";
  std::ofstream(text) << "not a database at all, just words";
  const auto r = pacer("study list '" + text + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(testing::read_file(text), "not a database at all, just words");

  // A real store, then damaged in the middle of its pages: refused by readers and by tune.
  const std::string store = dir_ + "/tune.db";
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --ruleset self --studies 1 --max-steps 5 --eval-every 5 "
                  "--threads 1 -q --store '" + store + "'").code, 0);
  { StudyStore checkpointed(store); }  // closing the last connection folds the WAL into the file
  const auto size = std::filesystem::file_size(store);
  ASSERT_GT(size, 8192u);
  {
    std::fstream f(store, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);  // page 2, the studies table's root: its b-tree header and cells
    const std::string junk(4096, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const auto damaged = pacer("study list '" + store + "'");
  EXPECT_EQ(damaged.code, 2) << damaged.out << damaged.err;
  EXPECT_NE(damaged.err.find(store), std::string::npos) << damaged.err;
  const auto append = pacer("tune -w synthetic_regression -a sgd --ruleset self --studies 2 --max-steps 5 "
                            "--eval-every 5 --threads 1 -q --store '" + store + "'");
  EXPECT_EQ(append.code, 2) << append.err;
}

TEST_F(HardeningCliTest, ScoringAStoreNeverMixesRulesets) {
  const std::string store = dir_ + "/tune.db";
  std::ofstream(dir_ + "/space.json") << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"}})";
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --space '" + dir_ + "/space.json' --studies 1 --trials 1 "
                  "--max-steps 5 --eval-every 5 --threads 1 -q --store '" + store + "'").code, 0);
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --ruleset self --studies 1 --max-steps 5 --eval-every 5 "
                  "--threads 1 -q --store '" + store + "'").code, 0);
  const auto external = pacer("score '" + store + "'");
  EXPECT_EQ(external.code, 0) << external.err;
  EXPECT_NE(external.err.find("1 self-tuning studies left out"), std::string::npos) << external.err;
  const auto self = pacer("score --self-tuning '" + store + "'");
  EXPECT_EQ(self.code, 0) << self.err;
  EXPECT_NE(self.err.find("1 external-tuning studies left out"), std::string::npos) << self.err;
  // The same name for a run with other settings: an error with the way out, not a merge.
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --space '" + dir_ + "/space.json' --studies 1 --trials 1 "
                  "--max-steps 7 --eval-every 7 --threads 1 -q --store '" + store + "'").code, 0);
  const auto clash = pacer("score '" + store + "'");
  EXPECT_EQ(clash.code, 2);
  EXPECT_NE(clash.err.find("pacer tune --name"), std::string::npos) << clash.err;
}

TEST_F(HardeningCliTest, StudyDeleteAsksForYesThenRemovesTheStudy) {
  const std::string store = dir_ + "/tune.db";
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --ruleset self --studies 2 --max-steps 5 --eval-every 5 "
                  "--threads 1 -q --store '" + store + "'").code, 0);
  expect_input_error("study delete '" + store + "' sgd/synthetic_regression/study_2", "give --yes");
  const auto r = pacer("study delete '" + store + "' sgd/synthetic_regression/study_2 --yes");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("deleted 1 studies (sgd/synthetic_regression/study_2) and their 1 trials"), std::string::npos)
      << r.out;
  const auto list = pacer("study show '" + store + "' --json");
  EXPECT_EQ(list.out.find("study_2"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("study_1"), std::string::npos) << list.out;
  // 5 steps reach no target: infinity is written as null (not "inf").
  const auto shown = nlohmann::json::parse(list.out);
  EXPECT_TRUE(shown.at(0).at("workload_time_to_target").is_null()) << list.out;
  EXPECT_TRUE(shown.at(0).at("studies").at(0).at("time_to_target").is_null()) << list.out;
  expect_input_error("study delete '" + store + "' nosuch --yes", "no study matches 'nosuch'");
}

TEST_F(HardeningCliTest, AScalingGoalOnAMetricTheWorkloadLacksIsAnInputError) {
  expect_input_error("scale -w synthetic_regression -a sgd --batch-sizes 16,32 --max-steps 50 --metric validation/bleu "
                     "--store '" + dir_ + "/scale.db'",
                     "reports no 'bleu' (its metrics: loss)");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/scale.db"));
}

TEST_F(HardeningCliTest, ScalingBatchSizesBeyondTheDataAndContradictoryThresholdsAreRefusedBeforeAnyWork) {
  // synthetic_regression trains on 8192 examples: 16384 cannot be filled (it used to fail only
  // when its turn came, after the smaller batch sizes had trained).
  expect_input_error("scale -w synthetic_regression -a sgd --batch-sizes 16:16384 --max-steps 50 --store '" + dir_ +
                         "/scale.db'",
                     "--batch-sizes: 16384 is larger than synthetic_regression's training set");
  expect_input_error("scale -w synthetic_regression -a sgd --batch-sizes 16,32 --max-steps 50 --perfect-threshold 0.2 "
                     "--maximal-threshold 0.5 --store '" + dir_ + "/scale.db'",
                     "contradict each other: need 0 <= maximal < perfect");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/scale.db"));
}

TEST(JsonInput, NestingAndSizeLimitsBeforeParsing) {
  EXPECT_NO_THROW(check_json_input(R"({"a": [[1, 2], {"b": "[[[[{{{{"}]})", "x.json"));  // brackets in strings do not count
  std::string deep(65, '[');
  deep += std::string(65, ']');
  try {
    check_json_input(deep, "deep.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "deep.json: the JSON document is nested deeper than 64 levels");
  }
  EXPECT_NO_THROW(check_json_input(std::string(64, '[') + std::string(64, ']'), "ok.json"));
  EXPECT_THROW(check_json_input(std::string(100, ' '), "big.json", JsonLimits{64, 99}), InputError);
}

TEST_F(HardeningCliTest, DeeplyNestedJsonIsAnInputErrorNotACrash) {
  std::string deep;
  for (int i = 0; i < 200000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(200000, '}');
  std::ofstream(dir_ + "/deep.json") << deep;
  expect_input_error("run" + quick_ + " --hparams '" + dir_ + "/deep.json'", "nested deeper than 64 levels");
  expect_input_error("tune -w synthetic_regression -a sgd --space '" + dir_ + "/deep.json' --store '" + dir_ +
                         "/s.db'",
                     "nested deeper than 64 levels");
}

TEST(HyperparameterRanges, UndefinedUpdatesAreOutOfRange) {
  const std::vector<HyperparameterSpec> specs = {{"one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1", true, false},
                                                 {"beta2", 0.999, 0.0, 1.0, "second-moment decay", false, true}};
  EXPECT_EQ(specs[0].range_text(), "(0, 1]");
  EXPECT_EQ(specs[1].range_text(), "[0, 1)");
  Hyperparameters hp;
  hp.set("beta2", 1.0);
  EXPECT_THROW(resolve_hyperparameters(specs, hp, "adamw"), InputError);
  hp.set("beta2", 0.0);
  EXPECT_NO_THROW(resolve_hyperparameters(specs, hp, "adamw"));
  hp.set("one_minus_beta1", 0.0);
  EXPECT_THROW(resolve_hyperparameters(specs, hp, "adamw"), InputError);
  hp.set("one_minus_beta1", 1.0);
  EXPECT_NO_THROW(resolve_hyperparameters(specs, hp, "adamw"));
}

class UndefinedUpdateCliTest : public testing::CliFixture {};

TEST_F(UndefinedUpdateCliTest, AdamWithBeta2OneIsAnInputErrorNotNaN) {
  const auto r = pacer("run -w synthetic_regression -a adamw --set beta2=1 --max-steps 5 -q");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("[0, 1)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pacer
