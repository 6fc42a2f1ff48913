// A process that refuses child processes (core/child_processes.h, a contained cpu-clock trial's):
// fork, posix_spawn and system fail with EPERM while threads still start. Checked in a child of the
// test process, since the refusal cannot be lifted.
#include <gtest/gtest.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "core/child_processes.h"
#include "core/file_restrictions.h"

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

// File restrictions (core/file_restrictions.h, a contained trial's): a folder made unreadable,
// writes only beneath the writable one, everything else readable, and the restriction inherited by
// a thread started after it. In a child of the test process: a restriction cannot be lifted.
namespace {

enum FileFailure {
  kSecretRead = 1, kOpenUnreadable = 2, kWroteOutside = 4, kScratchUnwritable = 8, kThreadEscaped = 16, kFileThrew = 32
};

int restrict_then_try(const std::string& base) {
  try {
    pacer::FileRestrictions files;
    files.unreadable = {base + "/secret"};
    files.writable = {base + "/scratch"};
    if (!pacer::restrict_files(files).enforced) return kFileThrew;
  } catch (...) {
    return kFileThrew;
  }
  int failures = 0;
  const auto can_open = [](const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd >= 0) ::close(fd);
    return fd >= 0;
  };
  if (can_open(base + "/secret/held_out.txt", O_RDONLY)) failures |= kSecretRead;
  if (!can_open(base + "/open/train.txt", O_RDONLY)) failures |= kOpenUnreadable;
  if (can_open(base + "/open/train.txt", O_WRONLY | O_APPEND) || can_open(base + "/open/new.txt", O_WRONLY | O_CREAT))
    failures |= kWroteOutside;
  if (!can_open(base + "/scratch/new.txt", O_WRONLY | O_CREAT)) failures |= kScratchUnwritable;
  bool escaped = false;
  std::thread thread([&] { escaped = can_open(base + "/secret/held_out.txt", O_RDONLY); });
  thread.join();
  if (escaped) failures |= kThreadEscaped;
  return failures;
}

}  // namespace

TEST(FileRestrictions, AnUnreadableFolderAndWritesOnlyBeneathTheWritableOne) {
  if (pacer::landlock_abi() < 1) GTEST_SKIP() << "this kernel has no Landlock";
  char base_template[] = "/tmp/pacer_landlock_XXXXXX";
  ASSERT_NE(::mkdtemp(base_template), nullptr);
  const std::string base = base_template;
  for (const char* folder : {"/secret", "/open", "/scratch"}) ASSERT_EQ(::mkdir((base + folder).c_str(), 0755), 0);
  for (const char* file : {"/secret/held_out.txt", "/open/train.txt"}) {
    const int fd = ::open((base + file).c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(restrict_then_try(base));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failures (bits of FileFailure): " << WEXITSTATUS(status);
  // This process, unrestricted, still reads and writes them all.
  EXPECT_EQ(::access((base + "/secret/held_out.txt").c_str(), R_OK | W_OK), 0);
  EXPECT_EQ(std::system(("rm -rf '" + base + "'").c_str()), 0);
}
