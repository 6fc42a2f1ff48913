// The SDK as a researcher uses it: install Pacer into a fresh prefix, build the example plugin
// (examples/algorithm_plugin) out of tree against it with CMake, list and run it with the
// installed pacer, and check it trains exactly like the same source compiled into this test; its
// update rule's unit tests, built against the installed pacer::testing, pass.
// Then the refusals: plugins built against another SDK ABI or LibTorch, and bad paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "runtime/torch_runtime.h"
#include "store/study_store.h"
#include "support/cli_runner.h"
#include "train/trial_runner.h"
#include "workloads/registry.h"

// The examples' sources, compiled in: the references their plugin builds must match. This test
// has signum's entry point already, so lars.cpp's PACER_PLUGIN line expands to nothing here.
#include "../examples/algorithm_plugin/signum.cpp"
#undef PACER_PLUGIN
#define PACER_PLUGIN(...)
#include "../examples/algorithm_plugin/lars.cpp"

namespace pacer {
namespace {

namespace fs = std::filesystem;

// LARS on synthetic_regression: its one linear layer needs a larger trust coefficient than
// eta = 0.001 of deep networks to train in 60 steps (6.34 -> 0.33 validation loss).
const double kLarsLearningRate = 0.3, kLarsTrustCoefficient = 0.1;

class PluginTest : public testing::CliFixture {
 protected:
  // Runs a shell command with output captured; returns the exit code.
  testing::CliResult sh(const std::string& command) const {
    const std::string out = dir_ + "/sh_out.txt", err = dir_ + "/sh_err.txt";
    const int status = std::system((command + " >'" + out + "' 2>'" + err + "'").c_str());
    testing::CliResult r;
    r.code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
    r.out = testing::read_file(out);
    r.err = testing::read_file(err);
    return r;
  }
};

std::vector<double> column(const std::string& csv, const std::string& name) {
  std::istringstream in(csv);
  std::string header, line, cell;
  std::getline(in, header);
  std::vector<std::string> names;
  std::istringstream h(header);
  while (std::getline(h, cell, ',')) names.push_back(cell);
  const size_t index = std::find(names.begin(), names.end(), name) - names.begin();
  std::vector<double> values;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (size_t i = 0; std::getline(row, cell, ','); ++i)
      if (i == index) values.push_back(std::stod(cell));
  }
  return values;
}

TEST_F(PluginTest, TheExampleBuiltOutOfTreeRunsLikeTheSameSourceBuiltIn) {
  const std::string prefix = dir_ + "/prefix", example = dir_ + "/example";
  const std::string cmake = "'" + std::string(PACER_CMAKE_COMMAND) + "'";
  auto r = sh(cmake + " --install '" + PACER_BUILD_DIR + "' --prefix '" + prefix + "'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // Only the SDK's headers are installed: <pacer/algorithm.h> and what it includes, none of the
  // internal ones (the store, the tuner, the CLI...), which a plugin must not come to depend on.
  const std::string headers = prefix + "/include/pacer";
  EXPECT_TRUE(fs::exists(headers + "/algorithm.h"));
  EXPECT_TRUE(fs::exists(headers + "/algorithms/training_algorithm.h"));
  EXPECT_TRUE(fs::exists(headers + "/core/error.h"));
  for (const char* internal : {"store/study_store.h", "run/tuning_worker.h", "train/trial_runner.h", "algorithms/registry.h",
                               "workloads/registry.h", "score/scoring.h"})
    EXPECT_FALSE(fs::exists(headers + "/" + internal)) << internal << " is internal but was installed";
  size_t installed = 0;
  for (const auto& entry : fs::recursive_directory_iterator(headers)) installed += entry.path().extension() == ".h";
  EXPECT_LT(installed, 40u) << "headers installed under " << headers;
  // Under the sanitizers the installed pacer::testing is instrumented and the example's own
  // compiler flags are not: its unit tests are not built there (tests/rule_harness_test.cpp runs
  // the harness under the sanitizers in process).
#ifdef PACER_SANITIZER_BUILD
  const std::string example_tests = " -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON";
#else
  const std::string example_tests;
#endif
  r = sh(cmake + " -S '" + PACER_SOURCE_DIR + "/examples/algorithm_plugin' -B '" + example +
         "' -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH='" + prefix + "'" + example_tests);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  r = sh(cmake + " --build '" + example + "'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::string library = example + "/libsignum.so", pacer_bin = "'" + prefix + "/bin/pacer'";

  // Its update rule's unit tests (examples/algorithm_plugin/signum_test.cpp): linked against the
  // installed test support (pacer::testing, <pacer/testing.h>), they load the library just built.
  EXPECT_TRUE(fs::exists(headers + "/testing.h"));
  EXPECT_TRUE(fs::exists(prefix + "/lib/libpacer_testing.so"));
  if (example_tests.empty()) {
    r = sh("'" + example + "/signum_test' --gtest_brief=1");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("[  PASSED  ] 3 tests"), std::string::npos) << r.out;
  }

  r = sh(pacer_bin + " list -a '" + library + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("signum"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("beta = 0.9"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[plugin " + library + "]"), std::string::npos) << r.out;

  const std::string run = " run -w synthetic_regression -a '" + library +
                          "' --set learning_rate=0.01 --max-steps 60 --eval-every 20 --budget 1000 --threads 1 -q "
                          "--ignore-targets --out '" + dir_ + "/run'";
  r = sh(pacer_bin + run);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::vector<double> plugin = column(testing::read_file(dir_ + "/run/eval_measurements.csv"), "validation/loss");

  // The same source built into this test, through the same runner and settings.
  set_num_threads(1);  // as --threads 1: LibTorch and OpenBLAS
  auto workload = create_workload("synthetic_regression");
  Signum built_in;
  TrialOptions options;
  options.spec.max_steps = 60;
  options.spec.eval_every_steps = 20;
  options.spec.time_budget = 1000;
  options.spec.stop_at_targets = false;
  Hyperparameters hp;
  hp.set("learning_rate", 0.01);
  const TrialResult reference = run_trial(*workload, built_in, hp, options);
  ASSERT_EQ(plugin.size(), reference.evals.size());
  for (size_t i = 0; i < plugin.size(); ++i) {
    const double expected = reference.evals[i].metrics.at("validation/loss");
    EXPECT_NEAR(plugin[i], expected, 1e-6 * std::abs(expected)) << "eval " << i;
  }
  EXPECT_LT(plugin.back(), plugin.front());  // it trained

  // To its target on the synthetic workload, as a user would run it (reached in 889 steps here).
  r = sh(pacer_bin + " run -w synthetic_regression -a '" + library + "' --set learning_rate=0.01 --threads 1");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("status:              reached (targets_reached)"), std::string::npos) << r.out;

  // Its state() holds what its updates depend on: a resume continues exactly (pacer check).
  r = sh(pacer_bin + " check -a '" + library + "' --steps 10 --set learning_rate=0.01");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("passed:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("state():   momentum\n"), std::string::npos) << r.out;

  // Tuned with its own search space; the study records the library and its content.
  const std::string store = dir_ + "/tune.db";
  r = sh(pacer_bin + " tune -w synthetic_regression -a '" + library + "' --space '" + PACER_SOURCE_DIR +
         "/examples/algorithm_plugin/signum_space.json' --studies 1 --trials 2 --max-steps 100 --threads 1 -q --store '" +
         store + "'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  {
    StudyStore studies(store, StudyStoreOptions{false});
    const auto recorded = studies.studies();
    ASSERT_EQ(recorded.size(), 1u);
    EXPECT_EQ(recorded[0].algorithm, "signum");
    EXPECT_NE(recorded[0].identity.find("\"algorithm_library_hash\""), std::string::npos) << recorded[0].identity;
  }

  // A newcomer against a board: a small board (heavy-ball momentum on the synthetic workload),
  // then the plugin through the same suite with --against it. It prints the plugin's rank, and
  // the board's times stop its slow trials (AlgoPerf's 4x cut-off).
  const std::string spaces = dir_ + "/spaces";
  std::filesystem::create_directories(spaces);
  std::ofstream(spaces + "/momentum.json") << R"({"learning_rate": {"min": 0.1, "max": 0.3, "scaling": "log"}})";
  const std::string board = dir_ + "/board.db", newcomer = dir_ + "/newcomer.db";
  // The 4x cut-off stops a trial only before its budget: synthetic_regression's 1 s budget is
  // below 4x the fastest trial under the sanitizers (CI's stage saw no cut), so there both
  // boards get ten times the budget; the cut-off still comes from the board's times.
#ifdef PACER_SANITIZER_BUILD
  const std::string budget = " --budget-multiplier 10";
#else
  const std::string budget;
#endif
  r = sh(pacer_bin + " board -a momentum -w synthetic_regression --rulesets external --reruns 0 --studies 3 --trials 3 "
         "--spaces '" + spaces + "' -q --store '" + board + "' --out '" + dir_ + "/board'" + budget);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // A second workload on that board (a few steps a trial), which the newcomer does not run: it is
  // scored over the one workload it ran, everyone else too.
  r = sh(pacer_bin + " board -a momentum -w fmnist_mlp --rulesets external --reruns 0 --studies 3 --trials 1 "
         "--max-steps 3 --spaces '" + spaces + "' -q --store '" + board + "' --out '" + dir_ + "/board2'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  r = sh(pacer_bin + " board -a '" + library + "' --space signum='" + PACER_SOURCE_DIR +
         "/examples/algorithm_plugin/signum_space.json' --against '" + board + "' --studies 3 --trials 3 -q --store '" +
         newcomer + "' --out '" + dir_ + "/newcomer' -w synthetic_regression --race-cutoff" + budget);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("signum, external (1 workload: synthetic_regression): rank "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" of 2, score "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; by steps: rank "), std::string::npos) << r.out;
  {
    const auto scores = nlohmann::json::parse(testing::read_file(dir_ + "/newcomer/external/seconds/scores.json"));
    EXPECT_EQ(scores["base_workloads"], nlohmann::json::array({"synthetic_regression"})) << scores.dump();
  }
  // Its step cost beside the board's algorithm's, read from the --against store.
  const std::string costs = testing::read_file(dir_ + "/newcomer/step_costs.csv");
  EXPECT_NE(costs.find("\nsignum,synthetic_regression,"), std::string::npos) << costs;
  EXPECT_NE(costs.find("\nmomentum,synthetic_regression,"), std::string::npos) << costs;
  {
    StudyStore studies(newcomer, StudyStoreOptions{false});
    int cut = 0;
    for (const auto& study : studies.studies())
      for (const auto& t : studies.trials(study.id)) cut += t.result && t.result->stop_reason == pacer::StopReason::race_4x_fastest;
    EXPECT_GT(cut, 0) << r.out << r.err;
  }

  // Data-parallel for free: the framework combines the gradients it takes from the context.
  r = sh(pacer_bin + " run -w synthetic_regression -a '" + library +
         "' --set learning_rate=0.01 --max-steps 20 --combine adasum --virtual-workers 4 --threads 1 -q");
  EXPECT_EQ(r.code, 0) << r.out << r.err;

  // The per-tensor path (lars.cpp: a TensorRule in TensorwiseAlgorithm), built in the same
  // project: listed with the hyperparameters TensorwiseAlgorithm appends, trains exactly like its
  // source compiled in, and its state() is complete.
  const std::string lars = example + "/liblars.so";
  r = sh(pacer_bin + " list -a '" + lars + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("trust_coefficient"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grad_clip"), std::string::npos) << r.out;
  r = sh(pacer_bin + " run -w synthetic_regression -a '" + lars + "' --set learning_rate=" +
         std::to_string(kLarsLearningRate) + " --set trust_coefficient=" + std::to_string(kLarsTrustCoefficient) +
         " --max-steps 60 --eval-every 20 --budget 1000 --threads 1 -q --ignore-targets --out '" + dir_ + "/lars'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::vector<double> lars_plugin =
      column(testing::read_file(dir_ + "/lars/eval_measurements.csv"), "validation/loss");
  Lars lars_built_in;
  Hyperparameters lars_hp;
  lars_hp.set("learning_rate", kLarsLearningRate);
  lars_hp.set("trust_coefficient", kLarsTrustCoefficient);
  const TrialResult lars_reference = run_trial(*workload, lars_built_in, lars_hp, options);
  ASSERT_EQ(lars_plugin.size(), lars_reference.evals.size());
  for (size_t i = 0; i < lars_plugin.size(); ++i) {
    const double expected = lars_reference.evals[i].metrics.at("validation/loss");
    EXPECT_NEAR(lars_plugin[i], expected, 1e-6 * std::abs(expected)) << "eval " << i;
  }
  EXPECT_LT(lars_plugin.back(), 0.2 * lars_plugin.front());  // it trained
  r = sh(pacer_bin + " check -a '" + lars + "' --steps 10");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("velocity"), std::string::npos) << r.out;
}

TEST_F(PluginTest, PluginsBuiltAgainstAnotherSdkLibTorchOrLayoutAreRefusedNamingBoth) {
  auto r = pacer(std::string("run -w synthetic_regression --max-steps 1 -q -a '") + MISMATCHED_ABI_PLUGIN + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("SDK ABI 999"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("this pacer has SDK ABI " + std::to_string(kSdkAbiVersion)), std::string::npos) << r.err;
  r = pacer(std::string("run -w synthetic_regression --max-steps 1 -q -a '") + MISMATCHED_TORCH_PLUGIN + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("LibTorch 0.0.1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::string("LibTorch ") + TORCH_VERSION), std::string::npos) << r.err;
  // The same versions, but the SDK's types laid out differently (compiled with -fpack-struct=4):
  // caught by the layout fingerprint, with no ABI bump needed. LibTorch 2.15's c10 headers refuse
  // that flag with a static assertion (an 8-byte atomic aligned to 4): there, no plugin can be laid
  // out so, and tests/CMakeLists.txt builds none.
  if (std::string(LAYOUT_PLUGIN).empty()) {
    std::printf("note: LibTorch %s's headers do not compile with -fpack-struct=4: no layout plugin to refuse\n",
                TORCH_VERSION);
    return;
  }
  r = pacer(std::string("run -w synthetic_regression --max-steps 1 -q -a '") + LAYOUT_PLUGIN + "'");
  EXPECT_EQ(r.code, 2);
  char host[17];
  std::snprintf(host, sizeof host, "%016llx", static_cast<unsigned long long>(kSdkLayoutFingerprint));
  EXPECT_NE(r.err.find("lays out the SDK's types differently from this pacer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::string("this pacer's ") + host), std::string::npos) << r.err;
}

// The executable exports the SDK (PACER_API), not its internals: a plugin that calls one fails to
// load, naming the path and the symbol (dlopen resolves every symbol at load), exit 2.
TEST_F(PluginTest, APluginCallingAnInternalFunctionIsRefusedNamingTheSymbol) {
  const auto r = pacer(std::string("run -w synthetic_regression --max-steps 1 -q -a '") + INTERNAL_SYMBOL_PLUGIN + "'");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot be loaded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("undefined symbol"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("workload_specs"), std::string::npos) << r.err;  // the mangled name contains it
}

TEST_F(PluginTest, BadLibrariesAreInputErrorsNamingThePath) {
  auto r = pacer("run -w synthetic_regression --max-steps 1 -q -a ./no_such_plugin.so");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no_such_plugin.so"), std::string::npos) << r.err;
  const std::string not_a_library = dir_ + "/garbage.so";
  std::ofstream(not_a_library) << "not an ELF file";
  r = pacer("run -w synthetic_regression --max-steps 1 -q -a '" + not_a_library + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot be loaded"), std::string::npos) << r.err;
  // A real shared library that is no plugin.
  r = pacer(std::string("list -a '") + NO_ENTRY_POINT_PLUGIN + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("has no entry point pacer_plugin_manifest"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pacer
