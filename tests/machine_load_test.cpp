// How `pacer run` chooses its threads on a busy machine: the count of other running tasks read
// from /proc/loadavg (the fewest over a few looks), the threads that leaves, and the run itself
// beside busy loops (a warning; fewer threads and the cpu clock, recorded in its results).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/machine_load.h"
#include "support/cli_runner.h"

namespace {

namespace fs = std::filesystem;

TEST(MachineLoad, CountsTheOtherRunningTasksFromLoadavg) {
  const std::string file = (fs::path(::testing::TempDir()) / "loadavg_test").string();
  std::ofstream(file) << "2.10 1.95 1.40 3/412 12345\n";
  EXPECT_EQ(pacer::other_running_tasks(3, 0, file), 2);  // 3 running, this one of them
  std::ofstream(file) << "0.10 0.05 0.01 1/300 12345\n";
  EXPECT_EQ(pacer::other_running_tasks(1, 0, file), 0);
  std::ofstream(file) << "garbage\n";
  EXPECT_EQ(pacer::other_running_tasks(1, 0, file), 0);
  EXPECT_EQ(pacer::other_running_tasks(1, 0, file + ".missing"), 0);
  fs::remove(file);
  EXPECT_GE(pacer::other_running_tasks(), 0);  // the real one reads
}

TEST(MachineLoad, ThreadsAreTheCoresTheOthersLeaveBetweenOneAndTheShare) {
  EXPECT_EQ(pacer::threads_beside(0, 2, 2), 2);
  EXPECT_EQ(pacer::threads_beside(1, 2, 2), 1);
  EXPECT_EQ(pacer::threads_beside(2, 2, 2), 1);   // never none
  EXPECT_EQ(pacer::threads_beside(9, 8, 8), 1);
  EXPECT_EQ(pacer::threads_beside(2, 16, 8), 8);  // fourteen free cores: still its share
  EXPECT_EQ(pacer::threads_beside(-3, 4, 4), 4);
}

class BusyMachineCliTest : public pacer::testing::CliFixture {};

TEST_F(BusyMachineCliTest, RunTakesFewerThreadsBesideBusyProcessesAndSaysSo) {
  const unsigned cpus = std::thread::hardware_concurrency();
  if (cpus < 2) GTEST_SKIP() << "one CPU: nothing to take fewer of";
  std::vector<pid_t> busy;
  for (unsigned i = 0; i < cpus; ++i) {  // every core taken: the run gets one thread
    const pid_t pid = ::fork();
    if (pid == 0) {
      for (volatile unsigned long n = 0;; n = n + 1) {
      }
    }
    busy.push_back(pid);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // The suite sets PACER_IGNORE_LOAD for every test (their numerics must not depend on the load).
  const char* ignore = std::getenv("PACER_IGNORE_LOAD");
  const std::string kept = ignore ? ignore : "";
  ::unsetenv("PACER_IGNORE_LOAD");
  const auto r = pacer("run -w synthetic_regression -a sgd --max-steps 3 --eval-every 3 --ignore-targets -q --out '" +
                       dir_ + "/run'");
  const auto wall = pacer("run -w synthetic_regression -a sgd --max-steps 3 --eval-every 3 --ignore-targets -q "
                          "--clock wall --out '" + dir_ + "/wall'");
  if (ignore) ::setenv("PACER_IGNORE_LOAD", kept.c_str(), 1);
  const auto pinned = pacer("run -w synthetic_regression -a sgd --max-steps 3 --eval-every 3 --ignore-targets -q "
                            "--threads 2 --out '" + dir_ + "/pinned'");
  for (pid_t pid : busy) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("pacer: warning: the machine is busy"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("training with 1 thread instead of"), std::string::npos) << r.err;
  EXPECT_EQ(pinned.err.find("the machine is busy"), std::string::npos) << pinned.err;  // --threads chooses
  const auto threads_of = [](const std::string& dir) {
    for (const auto& f : fs::recursive_directory_iterator(dir))
      if (f.path().filename().string().rfind("meta_data_", 0) == 0)
        return nlohmann::json::parse(pacer::testing::read_file(f.path().string()))["num_threads"].get<int>();
    return -1;
  };
  EXPECT_EQ(threads_of(dir_ + "/run"), 1);
  EXPECT_EQ(threads_of(dir_ + "/pinned"), 2);
  // The clock: cpu when none was asked for (said, and recorded), as asked otherwise.
  const auto clock_of = [](const std::string& dir) {
    return nlohmann::json::parse(pacer::testing::read_file(dir + "/trial.json"))["clock"].get<std::string>();
  };
  EXPECT_NE(r.err.find("(--clock cpu)"), std::string::npos) << r.err;
  EXPECT_EQ(clock_of(dir_ + "/run"), "cpu");
  EXPECT_EQ(clock_of(dir_ + "/pinned"), "wall");
  ASSERT_EQ(wall.code, 0) << wall.err;
  EXPECT_NE(wall.err.find("training with 1 thread"), std::string::npos) << wall.err;
  EXPECT_EQ(wall.err.find("(--clock cpu)"), std::string::npos) << wall.err;
  EXPECT_EQ(clock_of(dir_ + "/wall"), "wall");
  EXPECT_EQ(threads_of(dir_ + "/wall"), 1);
}

}  // namespace
