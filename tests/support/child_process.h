#pragma once
// Test support: start a shell command as a child in its own process group (stdout to a log file,
// stderr with it or to a file of its own, extra environment variables), and wait for it with a shell's exit code (128 + N for a
// child killed by signal N). For tests that kill, interrupt or outlive what they start.
//
//   const pid_t pid = pacer::testing::start_child("exec sleep 60", {}, dir + "/log");
//   ::kill(pid, SIGKILL);
//   EXPECT_EQ(pacer::testing::wait_exit(pid), 128 + SIGKILL);
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace pacer::testing {

inline pid_t start_child(const std::string& command, const std::vector<std::string>& env, const std::string& log,
                         const std::string& err_log = "") {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    const std::string full =
        "exec " + command + " >'" + log + "' " + (err_log.empty() ? std::string("2>&1") : "2>'" + err_log + "'");
    execl("/bin/sh", "sh", "-c", full.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

inline int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace pacer::testing
