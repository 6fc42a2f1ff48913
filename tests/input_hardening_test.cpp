// Bad input from the command line: every input error is one line `pacer: error: ...` with exit
// 2, before any work; NaN, infinities, negative seeds and runaway resource counts are refused;
// earlier results and stores are never overwritten, turned into something else or read damaged;
// hyperparameters that make an update undefined are out of range.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/folder_lock.h"
#include "core/hyperparameters.h"
#include "core/json_input.h"
#include "store/study_store.h"
#include "support/child_process.h"
#include "support/cli_runner.h"
#include "support/tmpfs_mount.h"

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
  EXPECT_NE(r.out.find("deleted 1 studies (sgd/synthetic_regression/study_2 (self, id 2)) and their 1 trials"),
            std::string::npos)
      << r.out;
  const auto list = pacer("study show '" + store + "' --json");
  EXPECT_EQ(list.out.find("study_2"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("study_1"), std::string::npos) << list.out;
  // 5 steps reach no target: infinity is written as null (not "inf").
  const auto shown = nlohmann::json::parse(list.out);
  EXPECT_TRUE(shown.at(0).at("workload_time_to_target").is_null()) << list.out;
  EXPECT_TRUE(shown.at(0).at("studies").at(0).at("time_to_target").is_null()) << list.out;
  expect_input_error("study delete '" + store + "' nosuch --yes", "no study matches 'nosuch'");
  // An empty selector (an unset shell variable) used to select, and delete, every study.
  expect_input_error("study delete '" + store + "' '' --yes", "the study selector is empty");
  expect_input_error("study delete '" + store + "' ' ' --yes", "the study selector is empty");
  expect_input_error("study copy '" + store + "' '" + dir_ + "/copy.db' ''", "the study selector is empty");
  expect_input_error("study export '" + store + "' ''", "the study selector is empty");
  EXPECT_NE(pacer("study show '" + store + "' --json").out.find("study_1"), std::string::npos);  // still there
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/copy.db"));
  // The external and the self-tuning study of one name: delete asks which (by id), naming both.
  std::ofstream(dir_ + "/space.json") << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"}})";
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --space '" + dir_ + "/space.json' --studies 1 --trials 1 "
                  "--max-steps 5 --eval-every 5 --threads 1 -q --store '" + store + "'").code, 0);
  const auto both = pacer("study delete '" + store + "' sgd/synthetic_regression/study_1 --yes");
  EXPECT_EQ(both.code, 2) << both.err;
  std::smatch external;
  ASSERT_TRUE(std::regex_search(both.err, external, std::regex(
      R"(names 2 studies: sgd/synthetic_regression/study_1 \(self, id 1\), sgd/synthetic_regression/study_1 \(external, id (\d+)\); give the id)")))
      << both.err;
  EXPECT_EQ(pacer("study delete '" + store + "' " + external[1].str() + " --yes").code, 0);
  EXPECT_NE(pacer("study show '" + store + "' --json").out.find("study_1"), std::string::npos);  // the self one stays
}

// Commands that only read never write a store: an older store (schema 1, the fixture of
// TrialSpecJson) is read through an upgraded copy in memory and stays byte for byte as it was;
// `pacer study upgrade` (or a command that writes) upgrades it. An export never replaces a
// store, and a store scored twice (or a study in two stores) is refused, not merged.
TEST_F(HardeningCliTest, ReadCommandsNeverWriteAStore) {
  const std::string old = dir_ + "/old.db";
  std::filesystem::copy_file(std::string(PACER_SOURCE_DIR) + "/tests/data/store_before_trial_spec.db", old);
  const std::string before = testing::read_file(old);
  const auto list = pacer("study list '" + old + "'");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("nadamw"), std::string::npos) << list.out;
  EXPECT_EQ(pacer("score '" + old + "' --time steps").code, 0);
  expect_input_error("study delete '" + old + "' nadamw", "give --yes");
  expect_input_error("study export '" + old + "' --csv -o '" + old + "'", "a SQLite database, not replaced");
  expect_input_error("score '" + old + "' '" + old + "'", "given twice");
  EXPECT_EQ(testing::read_file(old), before) << "a command that only reads changed the store";
  const auto copied = pacer("study copy '" + old + "' '" + dir_ + "/copy.db'");
  ASSERT_EQ(copied.code, 0) << copied.err;
  expect_input_error("score '" + old + "' '" + dir_ + "/copy.db'", "is in both");
  EXPECT_EQ(testing::read_file(old), before);
  const auto upgrade = pacer("study upgrade '" + old + "'");
  EXPECT_EQ(upgrade.code, 0) << upgrade.err;
  EXPECT_NE(upgrade.out.find(", upgraded from 1"), std::string::npos) << upgrade.out;
  EXPECT_NE(testing::read_file(old), before);
  EXPECT_NE(pacer("study upgrade '" + old + "'").out.find("already, nothing to upgrade"), std::string::npos);
  // What is not a store is named as such, whichever way it is not.
  std::ofstream(dir_ + "/empty.db").close();
  expect_input_error("score '" + dir_ + "/missing.db'", "no such file or folder");
  expect_input_error("score '" + dir_ + "/empty.db'", "an empty file");
}

// What an output path is stays what it is: a link is followed (its target written, the link
// kept), a device or a pipe is written through, a folder is refused; never replaced by a file.
TEST(AtomicFile, NeverReplacesWhatThePathIs) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::path(::testing::TempDir()) / "pacer_atomic_XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const std::string dir = tmpl;
  write_file_atomic(dir + "/real.txt", "old");
  fs::create_symlink("real.txt", dir + "/link.txt");
  write_file_atomic(dir + "/link.txt", "new");
  EXPECT_TRUE(fs::is_symlink(dir + "/link.txt"));
  EXPECT_EQ(read_text_file(dir + "/real.txt"), "new");
  fs::create_symlink("later.txt", dir + "/dangling.txt");  // names the file to create
  write_file_atomic(dir + "/dangling.txt", "made");
  EXPECT_TRUE(fs::is_symlink(dir + "/dangling.txt"));
  EXPECT_EQ(read_text_file(dir + "/later.txt"), "made");
  fs::create_directory(dir + "/folder");
  EXPECT_THROW(write_file_atomic(dir + "/folder", "x"), InputError);
  EXPECT_TRUE(fs::is_directory(dir + "/folder"));
  // /dev/full: the device's own error, and the device is still a device (as root it used to
  // become an HTML file).
  try {
    write_file_atomic("/dev/full", "x");
    ADD_FAILURE() << "writing /dev/full succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // A pipe is written through to its reader.
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_text_file(dir + "/fifo"); });
  write_file_atomic(dir + "/fifo", "through the pipe");
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(dir + "/fifo"));
  // A killed writer's temporary file is removed; a live process's is not.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  std::ofstream(dir + "/trial.json.tmp" + std::to_string(gone)) << "half";
  std::ofstream(dir + "/trial.json.tmp" + std::to_string(::getpid())) << "mine";
  EXPECT_EQ(remove_stale_temporary_files(dir), 1);
  EXPECT_FALSE(fs::exists(dir + "/trial.json.tmp" + std::to_string(gone)));
  EXPECT_TRUE(fs::exists(dir + "/trial.json.tmp" + std::to_string(::getpid())));
  fs::remove_all(dir);
}

TEST(FolderLock, ASecondWriterIsRefusedUntilTheFirstLetsGo) {
  std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "pacer_lock_XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  {
    FolderLock first(tmpl, "--out");
    EXPECT_TRUE(first.held());
    try {
      FolderLock second(tmpl, "--out");
      ADD_FAILURE() << "a second lock was granted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("another pacer process (pid " + std::to_string(::getpid()) + ")"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(FolderLock again(tmpl, "--out"));  // released with the first
  std::filesystem::remove_all(tmpl);
}

// Round 5, item 15: the light pacer reads --hparams to check the command, then hands it on to
// pacer-train; from a pipe, pacer-train found it empty ("malformed JSON ... unexpected end of input").
TEST_F(HardeningCliTest, HparamsFromAPipeReachTheTrainingProgram) {
  for (const std::string form : {" --hparams /dev/stdin", " --hparams=/dev/stdin"}) {
    const std::string out = dir_ + "/piped", err = dir_ + "/piped.err";
    std::filesystem::remove_all(out);
    const std::string command = "printf '{\"learning_rate\": 0.0123}' | '" + std::string(PACER_BINARY) + "' run" +
                                quick_ + form + " --out '" + out + "' >/dev/null 2>'" + err + "'";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << form << ": " << pacer::testing::read_file(err);
    EXPECT_NE(pacer::testing::read_file(out + "/hparams.json").find("0.0123"), std::string::npos) << form;
  }
}

// Round 5, items 8 and 17: a FIFO given as a store blocked in SQLite's open for good (`pacer serve
// fifo.db` hung silently, and every /api request of a served store replaced by one); a folder was
// "disk I/O error". Only a regular file is opened.
TEST_F(HardeningCliTest, AFifoOrAFolderAsAStoreIsNamedNotOpened) {
  const std::string fifo = dir_ + "/fifo.db", folder = dir_ + "/folder.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_directories(folder);
  for (const std::string command : {"study list", "study upgrade", "serve --port 0"}) {
    const auto r = pacer(command + " '" + fifo + "'");
    EXPECT_EQ(r.code, 2) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("fifo.db: a FIFO (named pipe), not a study store"), std::string::npos) << command << "\n" << r.err;
    const auto f = pacer(command + " '" + folder + "'");
    EXPECT_EQ(f.code, 2) << command << "\n" << f.err;
    EXPECT_NE(f.err.find("folder.db: a folder, not a study store"), std::string::npos) << command << "\n" << f.err;
  }
}

// Round 5, item 17: `run ... -- --out x` said "not expected: x --out".
TEST_F(HardeningCliTest, ArgumentsAfterADoubleDashAreExplained) {
  expect_input_error("run" + quick_ + " -- --out x", "'pacer run' takes nothing after '--' (only 'pacer launch' runs a "
                                                     "command given there); not expected: --out x");
}

// Round 5, item 13: a step hint of 0 or below was silently the workload's.
TEST_F(HardeningCliTest, ANonPositiveStepHintIsRefused) {
  for (const char* hint : {"0", "-5"}) {
    expect_input_error(std::string("targets -w synthetic_regression --step-hint ") + hint + " --store '" + dir_ +
                           "/t.db'",
                       std::string("--step-hint: must be positive (got ") + hint + ")");
  }
}

// Input that used to be silently changed, clamped or ignored: refused naming it, or warned.
TEST_F(HardeningCliTest, SilentlyChangedInputIsRefusedOrWarned) {
  expect_input_error("run" + quick_ + " --seed 18446744073709551616", "more than 18446744073709551615");
  std::ofstream(dir_ + "/twice.json") << R"({"learning_rate": 0.1, "learning_rate": 0.2})";
  const auto twice = pacer("run" + quick_ + " --hparams '" + dir_ + "/twice.json'");
  EXPECT_EQ(twice.code, 0) << twice.err;
  EXPECT_NE(twice.err.find("'learning_rate' is given twice; the later value is kept"), std::string::npos) << twice.err;
  std::ofstream(dir_ + "/self.json")
      << R"({"synthetic_regression": {"metric": "loss", "validation_target": 0.3, "base_workload": "synthetic_regression"}})";
  std::ofstream(dir_ + "/unknown.json") << R"({"synthetic_regression": {"metric": "loss", "validation_target": 0.3, "base_workload": "nosuch"}})";
  const std::string store = dir_ + "/s.db";
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --ruleset self --max-steps 5 --eval-every 5 --threads 1 -q "
                  "--store '" + store + "'").code, 0);
  expect_input_error("score '" + store + "' --self-tuning --targets '" + dir_ + "/self.json'", "names itself");
  expect_input_error("score '" + store + "' --self-tuning --targets '" + dir_ + "/unknown.json'", "'nosuch' is not a known workload");
  const std::string space = " --space '" + std::string(PACER_SOURCE_DIR) + "/spaces/sgd.json'";
  expect_input_error("scale -w synthetic_regression -a sgd,sgd" + space + space + " --batch-sizes 16,32 --max-steps 20 "
                     "--store '" + dir_ + "/scale.db'", "'sgd' is given twice");
  expect_input_error("scale -w fmnist_mlp -a sgd" + space + " --batch-sizes 16,32 --max-steps 20 --goal 2.0 --store '" +
                         dir_ + "/scale.db'",
                     "accuracy lies in [0, 1]");
  expect_input_error("probe -w synthetic_regression -a sgd --memory-limit 99999999999999T --out '" + dir_ + "/p'",
                     "more than the 8 EiB");
  expect_input_error("probe --stability -w synthetic_regression -a sgd --lr-min 0 --out '" + dir_ + "/p'",
                     "--lr-min: must be positive (got 0)");
  expect_input_error("probe --stability -w synthetic_regression -a sgd --lr-min 1e-9 --lr-max 10 --lr-factor 1.01 "
                     "--out '" + dir_ + "/p'",
                     "more than 64 runs");
  expect_input_error("probe --stability -w synthetic_regression -a sgd --warmups 0 --out '" + dir_ + "/p'", "--warmups");
  expect_input_error("probe --stability -w synthetic_regression -a sgd --learning-rates 0.1,5000 --out '" + dir_ + "/p'",
                     "learning_rate");  // out of sgd's range: before the sweep, not when it gets there
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/scale.db"));
  // Two tuning runs under one name with other search spaces: analyze refuses to mix them (its
  // boundary advice was wrong), as score does.
  std::ofstream(dir_ + "/narrow.json") << R"({"learning_rate": {"min": 0.01, "max": 0.02, "scaling": "log"}})";
  const std::string tune = "tune -w synthetic_regression -a sgd --studies 1 --trials 2 --max-steps 5 --eval-every 5 "
                           "--threads 1 -q --store '" + dir_ + "/two.db'";
  ASSERT_EQ(pacer(tune + space).code, 0);
  ASSERT_EQ(pacer(tune + " --space '" + dir_ + "/narrow.json'").code, 0);
  expect_input_error("analyze '" + dir_ + "/two.db' sgd/synthetic_regression --out ''", "two tuning runs with other settings");
}

// Outputs are checked before any work; messages name the real culprit, in one line.
TEST_F(HardeningCliTest, OutputsAreCheckedFirstAndMessagesSayWhatIsWrong) {
  const std::string store = dir_ + "/s.db";
  ASSERT_EQ(pacer("tune -w synthetic_regression -a sgd --ruleset self --max-steps 5 --eval-every 5 --threads 1 -q "
                  "--store '" + store + "'").code, 0);
  std::ofstream(dir_ + "/file") << "x";
  const std::string unwritable = dir_ + "/file/sub";  // a folder under a file cannot be made
  expect_input_error("score '" + store + "' --self-tuning --out '" + unwritable + "'", "cannot write there");
  expect_input_error("tune -w synthetic_regression -a sgd --ruleset self --max-steps 5 --threads 1 -q --store '" +
                         dir_ + "/t.db' --out '" + unwritable + "'",
                     "cannot write there");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/t.db"));  // before the store
  expect_input_error("analyze '" + store + "' sgd/synthetic_regression --out '" + unwritable + "'", "cannot write there");
  expect_input_error("probe -w synthetic_regression -a sgd --out '" + unwritable + "'", "cannot write there");
  // A default folder holding an earlier result is not replaced silently.
  std::filesystem::create_directories(dir_ + "/probe");
  std::ofstream(dir_ + "/probe/probe.json") << "{}";
  expect_input_error("probe -w synthetic_regression -a sgd --out '" + dir_ + "/probe'", "give --overwrite");
  EXPECT_EQ(testing::read_file(dir_ + "/probe/probe.json"), "{}");
  // Wrong diagnoses: a folder is a folder, not malformed JSON or a missing file.
  std::filesystem::create_directories(dir_ + "/folder");
  expect_input_error("run" + quick_ + " --hparams '" + dir_ + "/folder'", "is a folder, not a file");
  expect_input_error("tune -w synthetic_regression -a sgd --space '" + dir_ + "/folder' --store '" + dir_ + "/u.db'",
                     "is a folder, not a file");
  expect_input_error("run -w synthetic_regression -a '" + dir_ + "/folder' --max-steps 5", "is a folder without submission.py");
  expect_input_error("run -w synthetic_regression -a /dev/null --max-steps 5", "is not a regular file");
  expect_input_error("report '" + store + "'", "pacer score STORE --out DIR, then pacer report DIR");
  expect_input_error("study frob '" + store + "'", "unknown subcommand 'frob' of 'pacer study'");
  expect_input_error("run" + quick_ + " --budget 0", "--budget: must be positive (got 0)");
  expect_input_error("run -w synthetic_regression -a sgd --max-steps 5 --max-steps 6", "given 2 times; give it once");
  // A link loop in a log tree is skipped with a warning, not a raw filesystem error.
  std::filesystem::create_directories(dir_ + "/logs/sub");
  std::filesystem::create_directory_symlink("loop", dir_ + "/logs/loop");
  std::filesystem::create_directory_symlink("..", dir_ + "/logs/sub/up");
  const auto loop = pacer("score '" + dir_ + "/logs'");
  EXPECT_EQ(loop.code, 2) << loop.err;
  EXPECT_NE(loop.err.find("skipped"), std::string::npos) << loop.err;
  EXPECT_NE(loop.err.find("no eval_measurements.csv"), std::string::npos) << loop.err;
  // A store whose trials are unfinished (its worker killed mid-trial): the scores are provisional.
  EXPECT_EQ(pacer("score '" + store + "' --self-tuning").err.find("not finished"), std::string::npos);  // all finished
  const std::string killed = dir_ + "/killed.db";
  const pid_t worker = testing::start_child("'" + std::string(PACER_BINARY) +
                                                "' tune -w fmnist_mlp -a sgd --ruleset self --budget 1000 "
                                                "--ignore-targets --max-steps 100000 --threads 1 -q --store '" + killed + "'",
                                            {}, dir_ + "/killed.log");
  const auto started = std::chrono::steady_clock::now();
  while (testing::read_file(dir_ + "/killed.log").empty() && !std::filesystem::exists(killed)) {
    ASSERT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));  // its trial claimed and training
  ::kill(worker, SIGKILL);
  testing::wait_exit(worker);
  const auto unfinished = pacer("score '" + killed + "' --self-tuning");
  EXPECT_NE(unfinished.err.find("trials are not finished"), std::string::npos) << unfinished.err;
  // Without --out, run says that nothing is saved.
  const auto unsaved = pacer("run" + quick_);
  EXPECT_NE(unsaved.out.find("not saved (give --out DIR"), std::string::npos) << unsaved.out;
}

// An archived store on read-only media is read (a WAL database used to be "not a pacer study
// store" there: SQLite could not make its -shm file).
TEST_F(HardeningCliTest, AStoreOnReadOnlyMediaIsRead) {
  const std::string media = dir_ + "/media";
  const testing::TmpfsMount mount(media, "16m");
  if (!mount.mounted()) GTEST_SKIP() << "needs root and mount for a read-only file system";
  const auto made = pacer("tune -w synthetic_regression -a sgd --ruleset self --max-steps 5 --eval-every 5 --threads 1 "
                          "-q --store '" + media + "/s.db'");
  ASSERT_EQ(made.code, 0) << made.err;
  ASSERT_TRUE(mount.remount_read_only());
  const auto list = pacer("study list '" + media + "/s.db'");
  const auto score = pacer("score '" + media + "/s.db' --self-tuning");
  const auto write = pacer("study delete '" + media + "/s.db' sgd --yes");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("sgd"), std::string::npos) << list.out;
  EXPECT_EQ(score.code, 0) << score.err;
  EXPECT_NE(write.code, 0);
  EXPECT_NE(write.err.find("s.db"), std::string::npos) << write.err;  // the store is named
  EXPECT_NE(write.err.find("cannot be written"), std::string::npos) << write.err;
}

// AlgoPerf's log layout has no experiment level: a second experiment in one --out is refused
// before any work, while the same experiment (a resumed run, more workers) shares it.
TEST_F(HardeningCliTest, TwoExperimentsNeverShareOneLogFolder) {
  const std::string tune = "tune -w synthetic_regression --ruleset self --max-steps 5 --eval-every 5 --threads 1 -q";
  const std::string logs = dir_ + "/logs";
  ASSERT_EQ(pacer(tune + " -a sgd --store '" + dir_ + "/a.db' --out '" + logs + "'").code, 0);
  const std::string first = testing::read_file(logs + "/study_1/synthetic_regression_libtorch/trial_1/trial.json");
  expect_input_error(tune + " -a momentum --store '" + dir_ + "/b.db' --out '" + logs + "'",
                     "holds the logs of experiment sgd (self tuning)");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/b.db"));  // refused before the store was made
  EXPECT_EQ(pacer(tune + " -a sgd --store '" + dir_ + "/a.db' --out '" + logs + "'").code, 0);  // same experiment
  EXPECT_EQ(testing::read_file(logs + "/study_1/synthetic_regression_libtorch/trial_1/trial.json"), first);
}

TEST_F(HardeningCliTest, TwoRunsNeverWriteOneFolderAtOnce) {
  const std::string out = dir_ + "/shared";
  const pid_t first = testing::start_child("'" + std::string(PACER_BINARY) +
                                               "' run -w fmnist_mlp -a sgd --max-steps 100000 --budget 10000 "
                                               "--ignore-targets --threads 1 -q --out '" + out + "'",
                                           {}, dir_ + "/first.log");
  const auto started = std::chrono::steady_clock::now();
  while (!std::filesystem::exists(out + "/hparams.json")) {
    ASSERT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60)) << testing::read_file(dir_ + "/first.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Even --overwrite: it would remove the files the first run is writing.
  expect_input_error("run" + quick_ + " --overwrite --out '" + out + "'", "is being written by another pacer process");
  // The terminal closed (SIGHUP, which used to kill a run without trial.json): the first writes
  // what it measured and ends, as for Ctrl-C.
  ::kill(first, SIGHUP);
  EXPECT_EQ(testing::wait_exit(first), 130);
  EXPECT_NE(testing::read_file(out + "/trial.json").find("fmnist_mlp"), std::string::npos);
  EXPECT_EQ(pacer("run" + quick_ + " --overwrite --out '" + out + "'").code, 0);  // free again
}

// plan_scale's refusals are tested in process (scaling_test, ScaleRequestTest); through the
// binary: one of them is exit 2 with nothing written.
TEST_F(HardeningCliTest, AScalingGoalOnAMetricTheWorkloadLacksIsAnInputError) {
  expect_input_error("scale -w synthetic_regression -a sgd --batch-sizes 16,32 --max-steps 50 --metric validation/bleu "
                     "--store '" + dir_ + "/scale.db'",
                     "reports no 'bleu' (its metrics: loss)");
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
