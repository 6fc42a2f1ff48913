// pacer targets: AlgoPerf's target-setting procedure on the synthetic workload, in process through
// set_targets (the record's targets follow from its own runs by the documented rules; a second
// call resumes from the store without new trials; the summary says what the record says), then
// the command end to end and its input errors, and the shipped target records agreeing with the
// built-in workload specs.
#include <gtest/gtest.h>


#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <nlohmann/json.hpp>

#include "store/study_store.h"
#include "support/cli_runner.h"
#include "run/target_setting_run.h"
#include "core/format.h"
#include "score/pace.h"
#include "workloads/registry.h"

namespace {

using pacer::testing::CliFixture;
using pacer::testing::read_file;
namespace fs = std::filesystem;

// In process (unit): set_targets itself; CliFixture only for its temporary folder.
class TargetSettingRunTest : public CliFixture {};
class TargetsCliTest : public CliFixture {};

TEST_F(TargetSettingRunTest, TargetsFollowFromTheRerunsAndASecondCallResumes) {
  pacer::TargetSettingOptions options;
  options.workload = "synthetic_regression";
  options.algorithms = {"nadamw", "momentum"};
  options.trials = 2;
  options.reruns = 3;
  options.step_hint = 120;
  options.eval_every = 10;
  options.space_dir = std::string(PACER_SOURCE_DIR) + "/spaces";
  const pacer::TargetSetter setter(options);
  pacer::StudyStore store(dir_ + "/targets.db");
  const auto first = pacer::set_targets(setter, store, pacer::WorkerOptions{});
  ASSERT_TRUE(first.has_value());
  const nlohmann::json record = *first;
  EXPECT_EQ(record["workload"], "synthetic_regression");
  EXPECT_EQ(record["steps_per_run"], 90);  // 0.75 x 120
  ASSERT_EQ(record["search"].size(), 4u);  // 2 algorithms x 2 points
  ASSERT_EQ(record["reruns"].size(), 3u);

  // The best point is the search run with the lowest validation loss; every re-run uses it.
  double best = 1e300;
  nlohmann::json best_hparams;
  for (const auto& run : record["search"])
    if (!run["best_validation"].is_null() && run["best_validation"].get<double>() < best) {
      best = run["best_validation"];
      best_hparams = run["hparams"];
    }
  EXPECT_EQ(record["best_point"]["hparams"], best_hparams);
  std::vector<double> values;
  std::set<std::string> seeds;
  for (const auto& run : record["reruns"]) {
    EXPECT_EQ(run["hparams"], best_hparams);
    values.push_back(run["best_validation"]);
    seeds.insert(run["seed"].get<std::string>());
  }
  EXPECT_EQ(seeds.size(), 3u);  // fresh seeds
  std::sort(values.begin(), values.end());
  EXPECT_DOUBLE_EQ(record["validation_target"].get<double>(), values[1]);  // the median of three
  // Test target: the worst test value among re-runs that reach the validation target (loss: highest).
  double worst_test = -1e300;
  for (const auto& run : record["reruns"])
    if (run["best_validation"].get<double>() <= record["validation_target"].get<double>())
      worst_test = std::max(worst_test, run["test_at_best"].get<double>());
  EXPECT_DOUBLE_EQ(record["test_target"].get<double>(), worst_test);
  EXPECT_GT(record["median_time_to_target_s"].get<double>(), 0.0);
  // Budget: 3 x the re-runs' median step at which they reached the target (read from their own
  // records: the earliest eval step at or below the target) x the seconds per step timed alone.
  const auto& basis = record["budget_basis"];
  std::vector<double> steps_to_target;
  for (const auto& run : record["reruns"]) {
    const bool reaches = run["best_validation"].get<double>() <= record["validation_target"].get<double>();
    EXPECT_EQ(run["step_to_target"].is_null(), !reaches) << run;
    if (!reaches) continue;
    steps_to_target.push_back(run["step_to_target"].get<double>());
    EXPECT_LE(run["step_to_target"].get<double>(), run["best_step"].get<double>()) << run;
  }
  EXPECT_EQ(basis["reruns_reaching"].get<size_t>(), steps_to_target.size());
  std::sort(steps_to_target.begin(), steps_to_target.end());
  const size_t n = steps_to_target.size();
  ASSERT_GT(n, 0u);
  EXPECT_DOUBLE_EQ(basis["median_steps_to_target"].get<double>(),
                   n % 2 ? steps_to_target[n / 2] : (steps_to_target[n / 2 - 1] + steps_to_target[n / 2]) / 2.0);
  EXPECT_GT(basis["seconds_per_step_alone"].get<double>(), 0.0);
  EXPECT_NE(basis["measured_with"].get<std::string>().find("100 steps"), std::string::npos) << basis;
  // The device the timing ran on, as resolved (the spec says auto): the one whose speed the budget is.
  EXPECT_TRUE(std::regex_search(basis["measured_with"].get<std::string>(), std::regex("thread\\(s\\) on (cpu|cuda:[0-9]+)$")))
      << basis;
  EXPECT_DOUBLE_EQ(record["budget_s"].get<double>(),
                   std::ceil(3.0 * basis["median_steps_to_target"].get<double>() *
                             basis["seconds_per_step_alone"].get<double>()));
  EXPECT_DOUBLE_EQ(record["budget_under_load_s"].get<double>(),
                   std::ceil(3.0 * record["median_time_to_target_s"].get<double>()));

  // Again: everything is in the store, the timing run too: nothing re-runs, the same record
  // (budget included) comes out.
  int64_t trials = 0;
  for (const auto& study : store.studies()) trials += static_cast<int64_t>(store.trials(study.id).size());
  EXPECT_EQ(trials, 4 + 3 + 1);
  const auto second = pacer::set_targets(setter, store, pacer::WorkerOptions{});
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(nlohmann::json(*second), record);
  EXPECT_EQ(store.studies().size(), 4u);  // two search studies, the re-runs, the timing run
  // The finished procedure's record from the store alone (read-only, nothing runs): the same.
  const pacer::StudyStore reader(dir_ + "/targets.db", pacer::StudyStoreOptions::reading());
  EXPECT_EQ(nlohmann::json(pacer::read_targets(setter, reader)), record);
  // With more re-runs asked than the store holds, reading alone is refused, naming what is missing.
  pacer::TargetSettingOptions more = options;
  more.reruns = 4;
  try {
    pacer::read_targets(pacer::TargetSetter(more), reader);
    ADD_FAILURE() << "read_targets took an unfinished procedure";
  } catch (const pacer::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("re-runs of the best point"), std::string::npos) << e.what();
  }

  const std::string summary = pacer::target_summary(*first, options, "r.json");
  EXPECT_NE(summary.find("workload:           synthetic_regression (loss, lower is better)\n"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("validation target:  " +
                         pacer::format_double("%.4g", record["validation_target"].get<double>()) + "\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("x median steps to target"), std::string::npos) << summary;  // the timing run's basis
  EXPECT_NE(summary.find("record:             r.json\n"), std::string::npos) << summary;
}

// The command: the procedure, the summary on stdout, the record at --out.
TEST_F(TargetsCliTest, TheCommandWritesTheRecordAndPrintsItsSummary) {
  const std::string args = "targets -w synthetic_regression --algorithms momentum --trials 1 --reruns 2 --step-hint 120 "
                           "--eval-every 10 --timing-steps 0 --threads 1 -q --space-dir '" +
                           std::string(PACER_SOURCE_DIR) + "/spaces'";
  const auto r = pacer(args + " --store '" + dir_ + "/targets.db' --out '" + dir_ + "/record.json'");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("validation target:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x median time to target"), std::string::npos) << r.out;  // no timing run
  const auto record = nlohmann::json::parse(read_file(dir_ + "/record.json"));
  EXPECT_EQ(record["reruns"].size(), 2u);
  EXPECT_NE(r.out.find("record:             " + dir_ + "/record.json"), std::string::npos) << r.out;

  // --no-run: the light pacer reads the same record from the store without the training program;
  // a store that does not hold the procedure is refused (exit 2) naming it, and nothing is created.
  ASSERT_EQ(::setenv("PACER_TRAINING_PROGRAM", "/nonexistent/pacer-train", 1), 0);
  const auto read = pacer(args + " --store '" + dir_ + "/targets.db' --out '" + dir_ + "/again.json' --no-run");
  const auto absent = pacer(args + " --store '" + dir_ + "/other.db' --no-run");
  const auto trains = pacer(args + " --store '" + dir_ + "/targets.db'");
  ::unsetenv("PACER_TRAINING_PROGRAM");
  ASSERT_EQ(read.code, 0) << read.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ + "/again.json")), record);
  EXPECT_EQ(read.out, r.out.substr(0, r.out.find("record:")) + "record:             " + dir_ + "/again.json\n");
  EXPECT_EQ(absent.code, 2);
  EXPECT_NE(absent.err.find(dir_ + "/other.db"), std::string::npos) << absent.err;
  EXPECT_FALSE(fs::exists(dir_ + "/other.db"));
  EXPECT_EQ(trains.code, 1);  // without --no-run it is the training program's
  EXPECT_NE(trains.err.find("for 'pacer targets'"), std::string::npos) << trains.err;
}

TEST_F(TargetsCliTest, BadInputIsRefusedBeforeAnyRun) {
  auto r = pacer("targets -w nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown workload 'nope'"), std::string::npos) << r.err;
  r = pacer("targets -w synthetic_regression --reruns 1 --store '" + dir_ + "/a.db'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--reruns"), std::string::npos) << r.err;
  r = pacer("targets -w synthetic_regression --space-dir '" + dir_ + "/nowhere' --store '" + dir_ + "/b.db'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
  r = pacer("targets -w synthetic_regression --algorithms nadamw,bogus --store '" + dir_ + "/c.db'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bogus"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ + "/a.db") || fs::exists(dir_ + "/b.db") || fs::exists(dir_ + "/c.db"));
}

// Every workload's targets come from a record of `pacer targets` committed under docs/targets/,
// and the workload's built-in spec says what the record says (targets rounded to 4 decimals; for
// a base workload also the budget and step hint; a variant runs under its base workload's budget,
// as in AlgoPerf).
TEST(ShippedTargets, RecordsAgreeWithTheSpecs) {
  for (const auto& spec : pacer::workload_specs()) {
    const fs::path path = fs::path(PACER_SOURCE_DIR) / "docs" / "targets" / (spec.name + ".json");
    ASSERT_TRUE(fs::exists(path)) << spec.name << ": every workload's targets come with their record";
    const auto record = nlohmann::json::parse(read_file(path.string()));
    SCOPED_TRACE(spec.name);
    EXPECT_EQ(record["procedure"].get<std::string>().rfind("pacer targets", 0), 0u)
        << "every shipped target is set by pacer targets";
    EXPECT_NEAR(spec.validation_target, record["validation_target"].get<double>(), 5e-5);
    EXPECT_NEAR(spec.test_target, record["test_target"].get<double>(), 5e-5);
    const auto& base = spec.is_variant() ? pacer::workload_spec(spec.base_workload) : spec;
    EXPECT_DOUBLE_EQ(spec.time_budget, base.time_budget);
    EXPECT_EQ(spec.step_hint, record["step_hint"].get<int64_t>());
    if (!spec.is_variant()) {
      EXPECT_DOUBLE_EQ(spec.time_budget, record["budget_s"].get<double>());
    }
  }
}

// The pace's widths (score/pace.h) come from the same records: the sample sd of the re-runs' best
// validation values, to 4 decimals as the table holds them.
TEST(ShippedTargets, SeedSdsAgreeWithTheRecords) {
  for (const auto& spec : pacer::workload_specs()) {
    const fs::path path = fs::path(PACER_SOURCE_DIR) / "docs" / "targets" / (spec.name + ".json");
    const auto record = nlohmann::json::parse(read_file(path.string()));
    std::vector<double> best;
    for (const auto& rerun : record["reruns"]) {
      if (rerun.contains("best_validation") && rerun["best_validation"].is_number()) best.push_back(rerun["best_validation"]);
    }
    ASSERT_GE(best.size(), 2u) << spec.name;
    double mean = 0.0, squares = 0.0;
    for (double v : best) mean += v / static_cast<double>(best.size());
    for (double v : best) squares += (v - mean) * (v - mean);
    const double sd = std::sqrt(squares / static_cast<double>(best.size() - 1));
    ASSERT_TRUE(pacer::target_seed_sd(spec.name).has_value()) << spec.name;
    EXPECT_NEAR(*pacer::target_seed_sd(spec.name), sd, 5e-5 + 1e-12) << spec.name;
  }
}

}  // namespace
