#pragma once
// A process that waits for an untrusted trial's process also ends whatever that trial left
// running. Killing the trial's process group (run_trial_process) misses a daemon made by fork +
// setsid + fork: it leaves the group and, orphaned, would be adopted by init and outlive the trial.
// An OrphanReaper makes this process a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so such
// orphans are adopted by it instead, and kills them when the trial is over.
//
//   pacer::OrphanReaper reaper;          // notes the children this process has now
//   ... start the trial's process, wait for it ...
//   reaper.kill_adopted();               // SIGKILL and reap each child that came since, but for
//                                        // those a ProcessSupervisor of this process started
//
// Linux only; where the kernel refuses a subreaper, kill_adopted finds nothing to kill.
#include <sys/types.h>

#include <set>

namespace pacer {

class OrphanReaper {
 public:
  OrphanReaper();
  // Kills (SIGKILL) and reaps every child of this process that it did not have at construction and
  // that no ProcessSupervisor started; returns how many.
  int kill_adopted() const;

 private:
  std::set<pid_t> before_;
};

// The pids of this process's children, from /proc.
std::set<pid_t> children_of_this_process();

}  // namespace pacer
