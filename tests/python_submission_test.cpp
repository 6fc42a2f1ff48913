// AlgoPerf submissions written in Python, as a researcher runs them: `pacer run -a FOLDER` with the
// examples of examples/python_submission, which must train exactly like the built-ins they
// re-implement; the errors a submission file can make (exit 2 naming file, function and line); a
// study that goes on past a failing trial; a killed run that resumes through the submission's
// own optimizer state; the algoperf shim; data parallelism refused.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/file_restrictions.h"
#include "support/child_process.h"
#include "support/cli_runner.h"

namespace pacer {
namespace {

std::map<std::string, std::vector<double>> read_csv(const std::string& path) {
  std::istringstream in(testing::read_file(path));
  std::string line, cell;
  std::getline(in, line);
  std::vector<std::string> names;
  std::istringstream header(line);
  while (std::getline(header, cell, ',')) names.push_back(cell);
  std::map<std::string, std::vector<double>> columns;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (size_t i = 0; std::getline(row, cell, ',') && i < names.size(); ++i) {
      columns[names[i]].push_back(cell.empty() ? NAN : std::stod(cell));
    }
  }
  return columns;
}

const char* kNadamwPoint = R"({"learning_rate": 0.005, "one_minus_beta1": 0.1, "beta2": 0.999, "weight_decay": 0.01,
  "warmup_factor": 0.05, "label_smoothing": 0.1, "dropout_rate": 0.1})";
const char* kScheduleFreePoint = R"({"learning_rate": 0.0025, "one_minus_beta1": 0.1, "beta2": 0.99552,
  "epsilon": 1e-8, "weight_decay": 0.08121, "r": 0.0, "weight_lr_power": 2.0, "warmup_factor": 0.015,
  "label_smoothing": 0.2, "dropout_rate": 0.0})";

// Under AddressSanitizer (scripts/sanitize.sh) a segfault is caught by its handler and ends as
// exit 1; the cases of a deliberate segfault want the signal itself, as a release build dies.
class SegfaultsDieBySignal {
 public:
  SegfaultsDieBySignal() {
    const char* old = std::getenv("ASAN_OPTIONS");
    if (old != nullptr) old_ = old;
    ::setenv("ASAN_OPTIONS", (old_ ? *old_ + ":handle_segv=0" : std::string("handle_segv=0")).c_str(), 1);
  }
  ~SegfaultsDieBySignal() {
    if (old_) {
      ::setenv("ASAN_OPTIONS", old_->c_str(), 1);
    } else {
      ::unsetenv("ASAN_OPTIONS");
    }
  }

 private:
  std::optional<std::string> old_;
};

class PythonSubmissionTest : public testing::CliFixture {
 protected:
  void SetUp() override {
    testing::CliFixture::SetUp();
#ifndef PACER_PYTHON_BRIDGE_BUILT
    GTEST_SKIP() << "the Python bridge is not built here (python3-dev, pybind11-dev)";
#endif
  }
  // The Python example and the built-in over STEPS steps with the same hyperparameters and seed:
  // the same losses at every eval (relative 1e-5), the same steps. Evals at step 1 and every third.
  void expect_same_training(const std::string& workload, const std::string& builtin, const std::string& folder,
                            const std::string& point, int steps = 300) {
    const std::string hparams = write("point.json", point);
    const std::string common = " -w " + workload + " --hparams '" + hparams + "' --seed 5 --max-steps " +
                               std::to_string(steps) + " --eval-every " + std::to_string(steps / 3) +
                               " --ignore-targets --budget 100000 --eval-splits validation --threads 1 -q --out ";
    auto python = pacer("run -a '" + folder + "'" + common + "'" + dir_ + "/python'");
    ASSERT_EQ(python.code, 0) << python.err;
    auto native = pacer("run -a " + builtin + common + "'" + dir_ + "/builtin'");
    ASSERT_EQ(native.code, 0) << native.err;
    auto a = read_csv(dir_ + "/builtin/eval_measurements.csv");
    auto b = read_csv(dir_ + "/python/eval_measurements.csv");
    ASSERT_EQ(a.at("global_step"), b.at("global_step"));
    ASSERT_EQ(a.at("global_step").size(), 4u);  // steps 1, STEPS/3, 2 STEPS/3, STEPS
    for (const char* column : {"validation/loss", "validation/accuracy", "train/grad_norm"}) {
      ASSERT_TRUE(b.count(column)) << column;
      for (size_t i = 0; i < a.at(column).size(); ++i) {
        EXPECT_NEAR(b.at(column)[i], a.at(column)[i], 1e-5 * std::abs(a.at(column)[i])) << column << " at eval " << i;
      }
    }
  }
  // The ResNet goldens train 4 x 150 ResNet steps (about a minute of the Release stage): under
  // the sanitizers they would add several minutes to CI while exercising no bridge code the MLP
  // goldens do not (docs/development.md). A test body skips with `if (slow_under_sanitizers())
  // GTEST_SKIP()`: GTEST_SKIP inside a helper only returns from the helper, and the test ran on.
  static constexpr bool slow_under_sanitizers() {
#ifdef PACER_SANITIZER_BUILD
    return true;
#else
    return false;
#endif
  }
  static std::string example(const std::string& name) {
    return std::string(PACER_SOURCE_DIR) + "/examples/python_submission/" + name;
  }
  static std::string data(const std::string& file) {
    return std::string(PACER_SOURCE_DIR) + "/tests/data/python_submissions/" + file;
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(PythonSubmissionTest, TheNAdamWExampleTrainsTheMlpLikeTheBuiltIn) {
  expect_same_training("fmnist_mlp", "nadamw", example("nadamw"), kNadamwPoint);
}

TEST_F(PythonSubmissionTest, TheNAdamWExampleTrainsTheResNetLikeTheBuiltIn) {
  if (slow_under_sanitizers()) GTEST_SKIP() << "ResNet golden: run by the Release stage";
  expect_same_training("fmnist_resnet", "nadamw", example("nadamw"), kNadamwPoint, 150);
}

TEST_F(PythonSubmissionTest, TheScheduleFreeExampleTrainsTheMlpLikeTheBuiltIn) {
  expect_same_training("fmnist_mlp", "schedule_free_adamw", example("schedule_free_adamw"), kScheduleFreePoint);
}

// prepare_for_eval moves to x and recomputes the batch-norm statistics there, through the
// container's batch-norm layers, as the built-in does in C++.
TEST_F(PythonSubmissionTest, TheScheduleFreeExampleTrainsTheResNetLikeTheBuiltIn) {
  if (slow_under_sanitizers()) GTEST_SKIP() << "ResNet golden: run by the Release stage";
  expect_same_training("fmnist_resnet", "schedule_free_adamw", example("schedule_free_adamw"),
                       kScheduleFreePoint, 150);
}

TEST_F(PythonSubmissionTest, ErrorsInTheFileNameTheFileTheFunctionAndTheLine) {
  const std::string run = " -w fmnist_mlp --set learning_rate=0.05 --max-steps 5 --eval-every 5 --ignore-targets -q";
  struct Case {
    std::string file, expected;
  };
  const std::vector<Case> cases = {
      {"syntax_error.py", "syntax_error.py: import, line 5: SyntaxError: '(' was never closed"},
      {"missing_function.py", "missing_function.py: missing function data_selection"},
      {"missing_package.py", "missing_package.py: import, line 2 (in <module>): ModuleNotFoundError: No module named "
                             "'jax_is_not_installed_here'"},
      {"raises.py", "raises.py: update_params, line 9 (in update_params): KeyError: 'missing'"},
      {"wrong_return.py", "wrong_return.py: update_params returned tuple of length 2; expected a tuple "
                          "(optimizer_state, current_param_container, model_state)"},
      {"unsupported_import.py", "Pacer's algoperf shim provides algoperf, algoperf.spec"},
      // Every hyperparameter the source reads that the point lacks, not only the first one.
      {"reads_hyperparameters.py", "(the submission reads 4 hyperparameters; missing: one_minus_beta1, beta2, "
                                   "weight_decay; give them with --hparams FILE or --set NAME=VALUE)"},
  };
  for (const auto& c : cases) {
    auto r = pacer("run -a '" + data(c.file) + "'" + run + " --out '" + dir_ + "/" + c.file + "'");
    EXPECT_EQ(r.code, 2) << c.file << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.file << ":\n" << r.err;
  }
  // A traceback's end comes with the message.
  auto r = pacer("run -a '" + data("raises.py") + "'" + run);
  EXPECT_NE(r.err.find("return {}[ \"missing\" ]"), std::string::npos) << r.err;
  // get_batch_size raising for an unknown workload: the workload's size, with one warning.
  EXPECT_NE(r.err.find("get_batch_size('fmnist_mlp') raised ValueError: Unsupported workload name: fmnist_mlp.; using "
                       "the workload's default batch size 256"),
            std::string::npos)
      << r.err;
}

// Round 5, item 17: a numpy.int64 batch size was refused; a lone surrogate in an exception's text
// gave pybind11's "Unable to cast Python instance to C++ type"; a 16 MiB message went whole into
// trial.json, stderr and the store; an empty batch was reported as "diverged".
TEST_F(PythonSubmissionTest, AwkwardReturnsAndMessagesAreAcceptedOrNamed) {
  const auto run_case = [&](int c) {
    const std::string out = dir_ + "/awkward" + std::to_string(c), err = out + ".err";
    const std::string command = "AWKWARD_CASE=" + std::to_string(c) + " '" + std::string(PACER_BINARY) + "' run -a '" +
                                data("awkward.py") + "' -w fmnist_mlp --set learning_rate=0.05 --max-steps 3 "
                                "--eval-every 3 --ignore-targets -q --out '" + out + "' >/dev/null 2>'" + err + "'";
    const int status = std::system(command.c_str());
    testing::CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = testing::read_file(err);
    r.out = testing::read_file(out + "/trial.json");
    return r;
  };
  const auto numpy_size = run_case(1);
  EXPECT_EQ(numpy_size.code, 0) << numpy_size.err;
  const auto surrogate = run_case(2);
  EXPECT_NE(surrogate.err.find("ValueError: bad byte \\udcff here"), std::string::npos) << surrogate.err;
  EXPECT_EQ(surrogate.err.find("Unable to cast"), std::string::npos) << surrogate.err;
  const auto huge = run_case(3);
  EXPECT_NE(huge.err.find("more characters cut"), std::string::npos) << huge.err.substr(0, 2000);
  EXPECT_LT(huge.err.size(), 64u * 1024) << "stderr holds the whole 16 MiB message";
  EXPECT_LT(huge.out.size(), 64u * 1024) << "trial.json holds the whole 16 MiB message";
  const auto empty = run_case(4);
  EXPECT_NE(empty.err.find("data_selection returned a batch whose 'inputs' holds no examples"), std::string::npos)
      << empty.err;
  EXPECT_NE(empty.out.find("\"diverged\": false"), std::string::npos) << empty.out;
  EXPECT_EQ(empty.out.find("\"stop_reason\": \"diverged\""), std::string::npos) << empty.out;
}

TEST_F(PythonSubmissionTest, AStudyRecordsAFailingTrialAndGoesOn) {
  // sgd.py raises at step 3 for learning rates above 0.1; its own search space spans 0.01-0.5.
  const std::string store = dir_ + "/t.db";
  auto r = pacer("tune -w fmnist_mlp -a '" + data("sgd.py") + "' --studies 1 --trials 4 --max-steps 10 --eval-every 5 "
                 "--store '" + store + "' --threads 1 -q");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("the submission's own search space"), std::string::npos) << r.err;
  auto show = pacer("study show '" + store + "'");
  ASSERT_EQ(show.code, 0) << show.err;
  int failed = 0, finished = 0;
  std::istringstream lines(show.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" failed ") != std::string::npos) ++failed;
    if (line.find(" not_reached ") != std::string::npos) ++finished;
  }
  EXPECT_GE(failed, 1) << show.out;
  EXPECT_GE(finished, 1) << show.out;
  EXPECT_EQ(failed + finished, 4) << show.out;
}

// Untrusted code fails its trial alone: in `pacer tune` each trial of a Python submission runs in
// a process of its own (tune/contained_trial.h), so a submission that segfaults, exits without a
// result (with any status, 2 included), or never returns from a step (and ignores Ctrl-C) fails
// that trial with the reason, and the study goes on to its next trial; a process it forks does
// not outlive its trial.
TEST_F(PythonSubmissionTest, ASubmissionThatCrashesHangsOrExitsFailsItsTrialAlone) {
  struct Case {
    std::string how, reason;
    int trials, failed;
    std::string clock = "wall";
  };
  const std::vector<Case> cases = {{"segfault", "failed [its process died: signal 11", 2, 2},
                                   {"exit", "failed [its process exited (status 0) before recording a result]", 2, 2},
                                   // Exit 2 is bad input only when pacer's main says so: this one fails alone.
                                   {"exit2", "failed [its process exited with status 2", 2, 2},
                                   {"hang", "failed [ran past its limit of 15 s of wall time", 1, 1},
                                   {"fork", "", 1, 0},
                                   // On the cpu clock a child's work would not count: refused.
                                   {"fork", "may start no process", 1, 1, "cpu"},
                                   {"threads", "changed the intra-op thread count from 1 to 2", 1, 1}};
  for (const auto& c : cases) {
    std::optional<SegfaultsDieBySignal> by_signal;
    if (c.how == "segfault") by_signal.emplace();
    ::setenv("PACER_TEST_HOSTILE", c.how.c_str(), 1);
    const std::string store = dir_ + "/" + c.how + "_" + c.clock + ".db";
    auto r = pacer("tune -w fmnist_mlp -a '" + data("hostile.py") + "' --studies 1 --trials " + std::to_string(c.trials) +
                   " --max-steps 10 --eval-every 5 --threads 1 --clock " + c.clock + " --store '" + store + "'" +
                   // Only the hang waits for its limit; the others keep a margin for a slow start
                   // (the sanitizer builds load LibTorch and Python several times slower).
                   (c.how == "hang" ? " --trial-limit 15" : " --trial-limit 300"));
    ::unsetenv("PACER_TEST_HOSTILE");
    EXPECT_EQ(r.code, 0) << c.how << "\n" << r.err;
    EXPECT_NE(r.err.find(c.reason), std::string::npos) << c.how << "\n" << r.err;
    auto show = pacer("study show '" + store + "'");
    int failed = 0;
    std::istringstream lines(show.out);
    for (std::string line; std::getline(lines, line);) failed += line.find(" failed ") != std::string::npos;
    EXPECT_EQ(failed, c.failed) << c.how << " " << c.clock << "\n" << show.out;
    EXPECT_NE(std::system(("pgrep -f -- '[-]-store " + store + "' >/dev/null").c_str()), 0)
        << c.how << ": a process of the trial outlived it";
  }
}

// A board with a segfaulting and a hanging submission among its algorithms completes within its
// --max-hours: those trials fail with their reasons, named in its log and in board.md.
// The limit applies to every Python trial, and the hanging one waits it out: 30 s in a Release
// build, 90 s under the sanitizers, which leaves the segfaulting one room to start (LibTorch and
// Python load several times slower there).
TEST_F(PythonSubmissionTest, ABoardWithASegfaultingAndAHangingSubmissionCompletesWithinItsMaxHours) {
  SegfaultsDieBySignal by_signal;
#ifdef PACER_SANITIZER_BUILD
  const std::string limit = "90";
#else
  const std::string limit = "30";
#endif
  const auto start = std::chrono::steady_clock::now();
  auto r = pacer("board -a nadamw,'" + data("segfaults.py") + "','" + data("hangs.py") + "' -w fmnist_mlp "
                 "--rulesets external --reruns 0 --studies 1 --trials 1 --max-steps 10 --eval-every 5 "
                 "--trial-limit " + limit + " --max-hours 0.2 --workers 2 --spaces '" + std::string(PACER_SOURCE_DIR) +
                 "/spaces' --store '" + dir_ + "/board.db' --out '" + dir_ + "/board'");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_LT(seconds, 720.0);  // --max-hours 0.2
  EXPECT_NE(r.err.find("segfaults.py/fmnist_mlp/study_1 trial 1: failed [its process died: signal 11"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hangs.py/fmnist_mlp/study_1 trial 1: failed [ran past its limit of " + limit + " s"),
            std::string::npos)
      << r.err;
  const std::string board = testing::read_file(dir_ + "/board/board.md");
  EXPECT_NE(board.find("Trials done: 3 of 3"), std::string::npos) << board;
  EXPECT_NE(board.find("Failed trials (2;"), std::string::npos) << board;
  EXPECT_NE(board.find("- segfaults.py/fmnist_mlp/study_1 trial 1: its process died: signal 11"), std::string::npos)
      << board;
  EXPECT_NE(board.find("- hangs.py/fmnist_mlp/study_1 trial 1: ran past its limit of " + limit + " s"), std::string::npos)
      << board;
  EXPECT_NE(board.find("| nadamw |"), std::string::npos) << board;
}

// A process that dies after its trial finished (a crash in a library's teardown, LeakSanitizer's
// exit at a leak) ends the command as the trial did, with the summary it printed and a warning:
// the copy's buffered output reaches the terminal before it says it finished.
TEST_F(PythonSubmissionTest, ACopyDyingAfterItsTrialFinishedKeepsItsSummaryAndSaysSo) {
  ::setenv("PACER_TEST_HOSTILE", "exit_after_finishing", 1);
  auto r = pacer("run -w fmnist_mlp -a '" + data("hostile.py") + "' --set learning_rate=0.05 --max-steps 5 "
                 "--eval-every 5 --ignore-targets --threads 1 -q --eval-splits validation --out '" + dir_ + "/after'");
  ::unsetenv("PACER_TEST_HOSTILE");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("steps:               5 in"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("the trial's process exited with status 3 after it finished"), std::string::npos) << r.err;
  EXPECT_EQ(nlohmann::json::parse(testing::read_file(dir_ + "/after/trial.json"))["steps"], 5);
}

// The submission's optimizer state (torch.save of its optimizer's and scheduler's state dicts)
// travels in the checkpoint: a killed run resumes with the metrics of an uninterrupted one.
// `pacer run` of the same submissions: the trial runs in a copy of the command, so a segfault or
// an os._exit ends with a message, exit 1 and a failed trial.json instead of a dead process. An
// os._exit(2) is the process dying, not bad input (exit 2); an x32 system call on the cpu clock
// kills the whole copy (not only its calling thread, which left `pacer run` waiting for ever); a
// step that never returns ends at --trial-limit.
TEST_F(PythonSubmissionTest, PacerRunOfACrashingSubmissionSaysWhyAndWritesAFailedTrial) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"segfault", "failed: its process died: signal 11"},
      {"exit", "failed: its process exited (status 0) before recording a result"},
      {"exit2", "failed: its process exited with status 2"},
      {"x32", "failed: its process died: signal 31"},
      {"hang", "failed: ran past its limit of 5 s of wall time"}};
  for (const auto& [how, expected] : cases) {
    std::optional<SegfaultsDieBySignal> by_signal;
    if (how == "segfault") by_signal.emplace();
    ::setenv("PACER_TEST_HOSTILE", how.c_str(), 1);
    const std::string out = dir_ + "/run_" + how;
    auto r = pacer("run -w fmnist_mlp -a '" + data("hostile.py") + "' --set learning_rate=0.05 --max-steps 10 "
                   "--eval-every 5 --threads 1 -q --out '" + out + "'" +
                   (how == "x32" ? " --clock cpu" : how == "hang" ? " --trial-limit 5" : ""));
    ::unsetenv("PACER_TEST_HOSTILE");
    EXPECT_EQ(r.code, 1) << how << "\n" << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << how << "\n" << r.err;
    const auto trial = nlohmann::json::parse(testing::read_file(out + "/trial.json"));
    EXPECT_EQ(trial["status"], "failed") << how;
    EXPECT_NE(trial["message"].get<std::string>().find(how == "hang" ? "ran past its limit" : "the submission's process"),
              std::string::npos)
        << trial.dump();
  }
  // On the cpu clock the copy refuses child processes (a child's work would not be counted).
  ::setenv("PACER_TEST_HOSTILE", "fork", 1);
  auto forked = pacer("run -w fmnist_mlp -a '" + data("hostile.py") + "' --set learning_rate=0.05 --max-steps 10 "
                      "--eval-every 5 --threads 1 --clock cpu -q --out '" + dir_ + "/run_fork'");
  ::unsetenv("PACER_TEST_HOSTILE");
  EXPECT_EQ(forked.code, 2) << forked.err;  // the submission's error, as for any other
  const auto fork_trial = nlohmann::json::parse(testing::read_file(dir_ + "/run_fork/trial.json"));
  EXPECT_EQ(fork_trial["status"], "failed");
  EXPECT_NE(fork_trial["message"].get<std::string>().find("PermissionError"), std::string::npos) << fork_trial.dump();
  EXPECT_NE(fork_trial["message"].get<std::string>().find("may start no process"), std::string::npos) << fork_trial.dump();
  // A well-behaved submission through the same copy: its own exit status and results.
  auto ok = pacer("run -w fmnist_mlp -a '" + data("sgd.py") + "' --set learning_rate=0.05 --max-steps 5 --eval-every 5 "
                  "--threads 1 -q --out '" + dir_ + "/run_ok'");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(testing::read_file(dir_ + "/run_ok/trial.json"))["status"], "not_reached");
}

// What a contained trial may not do (issue 61, items 1 and 2): trace the process that waits for it
// (ptrace and process_vm_* fail with EPERM on either clock; the sanitizer builds keep ptrace for
// LeakSanitizer), leave a daemon behind (fork + setsid + fork escapes the process group; the
// waiting process adopts it as a subreaper and kills it with the trial), or start a process while
// it is imported on the cpu clock (the restrictions are in place before the import).
TEST_F(PythonSubmissionTest, AContainedTrialTracesNothingLeavesNoDaemonAndIsRestrictedFromItsImport) {
  const std::string run = " --set learning_rate=0.05 --max-steps 10 --eval-every 5 --threads 1 -q";
#ifndef PACER_SANITIZER_BUILD
  ::setenv("PACER_TEST_HOSTILE", "ptrace", 1);
  auto traced = pacer("run -w fmnist_mlp -a '" + data("hostile.py") + "'" + run + " --out '" + dir_ + "/ptrace'");
  EXPECT_EQ(traced.code, 0) << traced.err;
  auto traced_in_tune = pacer("tune -w fmnist_mlp -a '" + data("hostile.py") + "' --studies 1 --trials 1 --max-steps 10 "
                              "--eval-every 5 --threads 1 --trial-limit 300 --store '" + dir_ + "/ptrace.db'");
  EXPECT_EQ(traced_in_tune.code, 0) << traced_in_tune.err;
  EXPECT_EQ(traced_in_tune.err.find("attached to the waiting process"), std::string::npos) << traced_in_tune.err;
#endif
  const auto daemon_gone = [&](const std::string& command, const std::string& name) {
    ::setenv("PACER_TEST_HOSTILE", "daemon", 1);
    auto r = pacer(command);
    EXPECT_EQ(r.code, 0) << name << "\n" << r.err;
    const size_t at = r.err.find("hostile daemon pid ");
    ASSERT_NE(at, std::string::npos) << name << ": the daemon never said its pid\n" << r.err;
    const pid_t daemon = static_cast<pid_t>(std::atol(r.err.c_str() + at + std::strlen("hostile daemon pid ")));
    ASSERT_GT(daemon, 0) << name << "\n" << r.err;
    EXPECT_NE(::kill(daemon, 0), 0) << name << ": the daemon " << daemon << " outlived its trial";
    if (::kill(daemon, 0) == 0) ::kill(daemon, SIGKILL);
  };
  daemon_gone("run -w fmnist_mlp -a '" + data("hostile.py") + "'" + run + " --out '" + dir_ + "/daemon'", "run");
  daemon_gone("tune -w fmnist_mlp -a '" + data("hostile.py") + "' --studies 1 --trials 1 --max-steps 10 --eval-every 5 "
              "--threads 1 --trial-limit 300 --store '" + dir_ + "/daemon.db'", "tune");
  // On the cpu clock every import is restricted too (pacer run's copy already was): tune learns the
  // submission's declarations from a contained process, where its fork at import is refused, so
  // it is bad input before any trial, saying why (it could run no trial on this clock).
  ::setenv("PACER_TEST_HOSTILE", "fork_at_import", 1);
  auto forked = pacer("tune -w fmnist_mlp -a '" + data("hostile.py") + "' --studies 1 --trials 1 --max-steps 10 "
                      "--eval-every 5 --threads 1 --clock cpu --trial-limit 300 --store '" + dir_ + "/import.db'");
  ::unsetenv("PACER_TEST_HOSTILE");
  EXPECT_EQ(forked.code, 2) << forked.err;
  EXPECT_NE(forked.err.find("did not load in a contained process"), std::string::npos) << forked.err;
  EXPECT_NE(forked.err.find("may start no process"), std::string::npos) << forked.err;
}

// What a contained trial may not touch (issue 61, items 3 and 4), in `pacer tune` and in `pacer
// run`'s contained copy: the dataset's files (the held-out splits are among them) cannot be read,
// the study store and another run's folder cannot be written; the trial itself runs on and is
// recorded (by its worker, over the channel: the trial's process never writes the store).
TEST_F(PythonSubmissionTest, AContainedTrialReadsNoHeldOutDataAndWritesNoRecord) {
  const std::string labels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
  if (!std::filesystem::exists(labels)) GTEST_SKIP() << "no " << labels;
  if (landlock_abi() < 1) GTEST_SKIP() << "this kernel has no Landlock: a contained trial runs unrestricted (said in a warning)";
  const std::string tune = "tune -w fmnist_mlp -a '" + data("hostile.py") + "' --studies 1 --trials 1 --max-steps 10 "
                           "--eval-every 5 --threads 1 --trial-limit 300 ";
  const std::string run = "run -w fmnist_mlp -a '" + data("hostile.py") + "' --set learning_rate=0.05 --max-steps 10 "
                          "--eval-every 5 --threads 1 -q ";
  ::setenv("PACER_TEST_HOSTILE", "read_data", 1);
  ::setenv("PACER_TEST_DATA_FILE", labels.c_str(), 1);
  for (const std::string& command : {tune + "--store '" + dir_ + "/read.db'", run + "--out '" + dir_ + "/read_run'"}) {
    auto r = pacer(command);
    EXPECT_EQ(r.code, 0) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("hostile: refused: PermissionError"), std::string::npos) << command << "\n" << r.err;
    EXPECT_EQ(r.err.find("hostile: read "), std::string::npos) << command << "\n" << r.err;
  }
  // The trial records its restrictions (trial.json's "restrictions").
  const auto read_trial = nlohmann::json::parse(testing::read_file(dir_ + "/read_run/trial.json"));
  EXPECT_EQ(read_trial.value("restrictions", "").rfind("Landlock ABI ", 0), 0u) << read_trial.dump();
  // The store it is recorded in, and another run's record, stay as they were.
  const std::string store = dir_ + "/write.db", other = dir_ + "/read_run/trial.json";
  const std::string other_before = testing::read_file(other);
  ::setenv("PACER_TEST_HOSTILE", "write_store", 1);
  for (const std::string& victim : {store, other}) {
    ::setenv("PACER_TEST_VICTIM", victim.c_str(), 1);
    auto r = pacer(tune + "--store '" + (victim == store ? store : dir_ + "/write_other.db") + "'");
    EXPECT_EQ(r.code, 0) << victim << "\n" << r.err;
    EXPECT_NE(r.err.find("hostile: refused: PermissionError"), std::string::npos) << victim << "\n" << r.err;
    ::setenv("PACER_TEST_VICTIM", other.c_str(), 1);
    auto copy = pacer(run + "--out '" + dir_ + "/write_run_" + std::to_string(victim == store) + "'");
    EXPECT_EQ(copy.code, 0) << copy.err;
    EXPECT_NE(copy.err.find("hostile: refused: PermissionError"), std::string::npos) << copy.err;
  }
  ::unsetenv("PACER_TEST_HOSTILE");
  ::unsetenv("PACER_TEST_VICTIM");
  ::unsetenv("PACER_TEST_DATA_FILE");
  EXPECT_EQ(testing::read_file(other), other_before);
  auto list = pacer("study show '" + store + "' 1 --json");
  ASSERT_EQ(list.code, 0) << list.err;
  const auto study = nlohmann::json::parse(list.out);
  EXPECT_EQ(study.dump().find("forged"), std::string::npos);
  EXPECT_NE(study.dump().find("not_reached"), std::string::npos) << study.dump();  // recorded, with its evals
}

// No command imports a submission in an unrestricted process (issue 61, item 1): `pacer tune` and
// `pacer board` learn what it declares from a contained process (`describe-algorithms`), and each
// trial imports it in its own; every import says NoNewPrivs 1 (the old tune and board imported it
// in their own process first: NoNewPrivs 0, and a fork there ran outside every trial).
TEST_F(PythonSubmissionTest, NoCommandImportsASubmissionInAnUnrestrictedProcess) {
  ::setenv("PACER_TEST_HOSTILE", "report_import", 1);
  auto tune = pacer("tune -w fmnist_mlp -a '" + data("hostile.py") + "' --studies 1 --trials 1 --max-steps 10 "
                    "--eval-every 5 --threads 1 --trial-limit 300 --store '" + dir_ + "/tune.db'");
  auto board = pacer("board -a '" + data("hostile.py") + "' -w fmnist_mlp --rulesets external --reruns 0 --studies 1 "
                     "--trials 1 --max-steps 10 --eval-every 5 --trial-limit 300 --workers 1 --store '" + dir_ +
                     "/board.db' --out '" + dir_ + "/board'");
  ::unsetenv("PACER_TEST_HOSTILE");
  for (const auto* r : {&tune, &board}) {
    EXPECT_EQ(r->code, 0) << r->err;
    size_t imports = 0;
    for (size_t at = r->err.find("hostile: imported"); at != std::string::npos; at = r->err.find("hostile: imported", at + 1)) {
      ++imports;
      const std::string line = r->err.substr(at, r->err.find('\n', at) - at);
      EXPECT_NE(line.find("NoNewPrivs 1"), std::string::npos) << line;
    }
    EXPECT_EQ(imports, 2u) << r->err;  // the description's process, the trial's
  }
  // A submission that does not import is bad input before any trial, with its own message.
  const std::string broken = write("broken.py", "import a_package_that_is_not_installed\n");
  auto refused = pacer("tune -w fmnist_mlp -a '" + broken + "' --studies 1 --trials 1 --space '" +
                       std::string(PACER_SOURCE_DIR) + "/spaces/sgd.json' --store '" + dir_ + "/broken.db'");
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("No module named 'a_package_that_is_not_installed'"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("did not load in a contained process"), std::string::npos) << refused.err;
}

TEST_F(PythonSubmissionTest, AKilledRunResumesThroughTheSubmissionsOptimizerState) {
  const std::string hparams = write("point.json", kNadamwPoint);
  const std::string run = " run -w fmnist_mlp -a '" + example("nadamw") + "' --hparams '" + hparams +
                          "' --seed 2 --max-steps 600 --eval-every 100 --ignore-targets --budget 100000 --threads 1 "
                          "-q --eval-splits validation";
  auto reference = pacer(run + " --out '" + dir_ + "/reference'");
  ASSERT_EQ(reference.code, 0) << reference.err;
  const std::string cut = dir_ + "/cut";
  const pid_t pid = testing::start_child("'" + std::string(PACER_BINARY) + "'" + run + " --checkpoint-every 100 --out '" +
                                             cut + "'",
                                         {}, dir_ + "/cut.log");
  const auto started = std::chrono::steady_clock::now();
  auto checkpoint_step = [&] {
    const std::string text = testing::read_file(cut + "/checkpoint/state.json");
    const auto at = text.find("\"step\":");
    return at == std::string::npos ? -1LL : std::stoll(text.substr(at + 7));
  };
  while (checkpoint_step() < 200) {
    ASSERT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(180)) << testing::read_file(dir_ + "/cut.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ASSERT_EQ(testing::wait_exit(pid), 128 + SIGKILL) << "the run ended before it could be killed";
  auto resumed = pacer(run + " --checkpoint-every 100 --resume --out '" + cut + "'");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto a = read_csv(dir_ + "/reference/eval_measurements.csv"), b = read_csv(cut + "/eval_measurements.csv");
  ASSERT_EQ(a.at("global_step"), b.at("global_step"));
  for (const char* column : {"validation/loss", "validation/accuracy", "train/grad_norm"}) {
    for (size_t i = 0; i < a.at(column).size(); ++i) {
      EXPECT_NEAR(b.at(column)[i], a.at(column)[i], 1e-9 * std::abs(a.at(column)[i])) << column << " at eval " << i;
    }
  }
  EXPECT_EQ(b.at("preemption_count").back(), 1.0);
}

TEST_F(PythonSubmissionTest, TheShimImportsAsSubmissionsDoAndSelfTuningPassesNoHyperparameters) {
  // v0.6's package name, and v0.5's (algorithmic_efficiency: the same modules).
  for (const char* file : {"shim_imports.py", "shim_imports_v05.py"}) {
    auto run = pacer("run -w fmnist_mlp -a '" + data(file) +
                     "' --self-tuning --max-steps 5 --eval-every 5 --ignore-targets -q --eval-splits validation");
    EXPECT_EQ(run.code, 0) << file << "\n" << run.out << run.err;
    EXPECT_NE(run.out.find("steps:               5 in"), std::string::npos) << file << "\n" << run.out << run.err;
  }
  // Listed like any algorithm, under its name.
  auto r = pacer("list -a '" + example("nadamw") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("nadamw.py"), std::string::npos) << r.out;
}

// A submission inside a repository laid out as AlgoPerf's imports by its package path from the
// repository's root, as AlgoPerf's runner (started at that root) lets it (the 2026 Muon
// submissions: `from submissions.self_tuning.<name>.muon import ...`), and its own sub-packages
// from its folder (Distributed Shampoo: `from optimizers.distributed_shampoo... import ...`).
TEST_F(PythonSubmissionTest, ASubmissionImportsFromItsRepositorysRootAndItsOwnSubPackages) {
  const std::string folder = "repo/submissions/self_tuning/mine";
  std::filesystem::create_directories(dir_ + "/" + folder + "/optimizers");
  write(folder + "/sgd_rule.py", testing::read_file(data("sgd.py")));
  write(folder + "/optimizers/__init__.py", "");
  write(folder + "/optimizers/names.py", "RULE = 'sgd_rule'\n");
  const std::string submission = write(folder + "/submission.py",
                                       "from optimizers.names import RULE\n"
                                       "assert RULE == 'sgd_rule'\n"
                                       "from submissions.self_tuning.mine.sgd_rule import (data_selection, get_batch_size,\n"
                                       "    init_optimizer_state, prepare_for_eval, update_params)\n");
  auto r = pacer("run -w fmnist_mlp -a '" + submission +
                 "' --self-tuning --max-steps 5 --eval-every 5 --ignore-targets -q --eval-splits validation");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("steps:               5 in"), std::string::npos) << r.out;
  // Outside such a layout the package path is not found, and the message says which module.
  std::filesystem::rename(dir_ + "/repo/submissions", dir_ + "/repo/elsewhere");
  r = pacer("run -w fmnist_mlp -a '" + dir_ + "/repo/elsewhere/self_tuning/mine/submission.py' --self-tuning "
            "--max-steps 5 -q");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("No module named 'submissions'"), std::string::npos) << r.err;
}

// A submission that needs PyTorch 2.x (torch.compile; Schedule-Free AdamW's addcmul_ meets an
// internal assert of 1.13) fails on a build that embeds PyTorch 1.x with a message naming the version
// it needs and how to build for it; on 2.x it trains.
TEST_F(PythonSubmissionTest, ASubmissionThatNeedsPyTorch2SaysSoOnAnOlderOne) {
  auto r = pacer("run -w fmnist_mlp -a '" + data("needs_torch2.py") + "' --set learning_rate=0.05 --max-steps 5 "
                 "--eval-every 5 --ignore-targets -q");
#if PACER_TORCH_MAJOR == 0
  GTEST_SKIP() << "the build's LibTorch version is unknown (CMake's Torch_VERSION is empty)";
#elif PACER_TORCH_MAJOR < 2
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("AttributeError: module 'torch' has no attribute 'compile' (this submission needs PyTorch "
                       "2.x; this Pacer embeds PyTorch 1."),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("make test TORCH=pip"), std::string::npos) << r.err;
#else
  EXPECT_EQ(r.code, 0) << r.err;
#endif
}

// AlgoPerf's runner hands update_params whatever data_selection returned: the LAWA submissions
// return the input queue itself and draw their batches inside update_params.
TEST_F(PythonSubmissionTest, TheInputQueueReturnedAsTheBatchReachesUpdateParams) {
  auto r = pacer("run -w fmnist_mlp -a '" + data("queue_as_batch.py") +
                 "' --self-tuning --max-steps 5 --eval-every 5 --ignore-targets -q --eval-splits validation");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("steps:               5 in"), std::string::npos) << r.out;
}

// AlgoPerf's spaces and points hold strings and booleans (Distributed Shampoo's "grafting_type":
// "ADAM"). They reach the submission as a str and a bool, from --hparams, --set and a study's
// sampler, and the store, `study show` and `study export` keep them; a built-in takes numbers only.
TEST_F(PythonSubmissionTest, StringAndBooleanHyperparametersReachTheSubmissionAsGiven) {
  const std::string submission = data("typed_hyperparameters") + "/";
  const std::string steps = " --max-steps 3 --eval-every 3 --ignore-targets -q --eval-splits validation";
  const std::string point = write("point.json", R"({"learning_rate": 0.05, "grafting_type": "ADAM", "nesterov": true})");
  auto r = pacer("run -w fmnist_mlp -a '" + submission + "' --hparams '" + point + "'" + steps);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const std::string set = " --set learning_rate=0.05 --set grafting_type=SGD";
  r = pacer("run -w fmnist_mlp -a '" + submission + "'" + set + " --set nesterov=false" + steps);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // The submission's own check fails where a value arrives as another type: a number for the boolean.
  r = pacer("run -w fmnist_mlp -a '" + submission + "'" + set + " --set nesterov=1" + steps);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("TypeError: nesterov arrived as 1.0"), std::string::npos) << r.err;

  // A study samples the submission's own space (strings and booleans among its feasible points).
  const std::string store = dir_ + "/typed.db";
  r = pacer("tune -w fmnist_mlp -a '" + submission + "' --studies 1 --trials 4 --max-steps 3 --eval-every 3 "
            "--store '" + store + "' --threads 1 -q");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto exported = pacer("study export '" + store + "' --json");
  ASSERT_EQ(exported.code, 0) << exported.err;
  const auto sweeps = nlohmann::json::parse(exported.out);
  std::set<std::string> grafting;
  int trials = 0;
  for (const auto& trial : sweeps.at(0).at("studies").at(0).at("trials")) {
    ++trials;
    EXPECT_EQ(trial.at("status"), "complete") << trial.dump();
    EXPECT_TRUE(trial.at("hyperparameters").at("nesterov").is_boolean()) << trial.dump();
    grafting.insert(trial.at("hyperparameters").at("grafting_type").get<std::string>());
  }
  EXPECT_EQ(trials, 4);
  EXPECT_EQ(grafting, (std::set<std::string>{"SGD", "ADAM"}));
  auto show = pacer("study show '" + store + "'");
  EXPECT_NE(show.out.find("grafting_type=\""), std::string::npos) << show.out;

  // A built-in takes numbers: text is refused naming the key, before anything runs.
  r = pacer("run -w fmnist_mlp -a nadamw --set learning_rate=0.0o1" + steps);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("hyperparameter 'learning_rate' = \"0.0o1\" is text; algorithm nadamw takes a number for it"),
            std::string::npos)
      << r.err;
}

// A training forward pass with update_batch_norm=False (Schedule-Free AdamW v2's closure) leaves
// the running statistics as they were and the backward after it runs: on PyTorch 2.15 the bridge's
// restore by copy_ broke that backward ("modified by an inplace operation").
TEST_F(PythonSubmissionTest, AForwardPassThatLeavesBatchNormAloneStillBackpropagates) {
  auto r = pacer("run -w fmnist_resnet -a '" + data("frozen_batch_norm.py") +
                 "' --self-tuning --max-steps 3 --eval-every 3 --ignore-targets -q --eval-splits validation");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("steps:               3 in"), std::string::npos) << r.out;
}

TEST_F(PythonSubmissionTest, DataParallelismIsRefusedWithTheReason) {
  auto r = pacer("run -w fmnist_mlp -a '" + data("sgd.py") + "' --set learning_rate=0.05 --virtual-workers 2 "
                 "--max-steps 5 -q");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is a Python submission: its update_params takes its own gradient"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pacer
