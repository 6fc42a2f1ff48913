#include "core/orphan_reaper.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/process_supervisor.h"

namespace pacer {

std::set<pid_t> children_of_this_process() {
  std::set<pid_t> children;
  const pid_t self = ::getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;  // it ended meanwhile
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == self) children.insert(static_cast<pid_t>(std::atol(name.c_str())));
  }
  return children;
}

OrphanReaper::OrphanReaper() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  before_ = children_of_this_process();
}

int OrphanReaper::kill_adopted() const {
  int killed = 0;
  // With the supervisors' registry held: a child another thread's supervisor started (a trial of
  // a worker running as a thread) is not an orphan, and none starts meanwhile.
  with_supervised_children([&](const std::set<pid_t>& supervised) {
    // An orphan may start another before it dies: look again until none is left (bounded).
    for (int round = 0; round < 10; ++round) {
      int this_round = 0;
      for (const pid_t pid : children_of_this_process()) {
        if (before_.count(pid) || supervised.count(pid)) continue;
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        ++this_round;
      }
      killed += this_round;
      if (this_round == 0) break;
    }
  });
  return killed;
}

}  // namespace pacer
