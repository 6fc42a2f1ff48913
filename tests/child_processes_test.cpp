// A process that refuses child processes (core/child_processes.h, a contained cpu-clock trial's):
// fork, posix_spawn and system fail with EPERM while threads still start. Checked in a child of the
// test process, since the refusal cannot be lifted.
#include <gtest/gtest.h>
#include <errno.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "core/child_processes.h"

extern char** environ;

namespace {

// What went wrong in the child, one bit each (its exit status).
enum Failure { kNotInstalled = 1, kForked = 2, kSpawned = 4, kNoThread = 8, kSystemRan = 16, kThrew = 32 };

int refuse_then_try_everything() {
  try {
    pacer::refuse_child_processes();
    pacer::refuse_child_processes();  // a second call changes nothing
  } catch (...) {
    return kThrew;
  }
  int failures = pacer::child_processes_refused() ? 0 : kNotInstalled;
  const pid_t forked = ::fork();
  if (forked == 0) ::_exit(0);
  if (forked != -1 || errno != EPERM) failures |= kForked;
  pid_t spawned = 0;
  char name[] = "true";
  char* argv[] = {name, nullptr};
  if (::posix_spawnp(&spawned, "true", nullptr, nullptr, argv, environ) == 0) failures |= kSpawned;
  bool ran = false;
  std::thread thread([&] { ran = true; });
  thread.join();
  if (!ran) failures |= kNoThread;
  if (std::system("exit 0") == 0) failures |= kSystemRan;
  return failures;
}

TEST(ChildProcesses, ARefusingProcessStartsThreadsButNoProcess) {
  EXPECT_FALSE(pacer::child_processes_refused());
  const pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) ::_exit(refuse_then_try_everything());
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failures (bits): 1 not installed, 2 fork ran, 4 posix_spawn ran, "
                                       "8 no thread, 16 system() ran, 32 installing threw";
  // The test process itself is untouched.
  EXPECT_FALSE(pacer::child_processes_refused());
  EXPECT_EQ(std::system("exit 0"), 0);
}

TEST(ChildProcesses, TheHintSaysWhyAndWhatAllowsThem) {
  const std::string hint = pacer::child_process_refusal_hint();
  EXPECT_NE(hint.find("cpu clock"), std::string::npos);
  EXPECT_NE(hint.find("--clock wall"), std::string::npos);
}

}  // namespace
