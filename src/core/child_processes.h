#pragma once
// A trial timed by the cpu clock counts the CPU time of its own process. Work done in a child
// process would be free compute for the submission, so a process that runs only untrusted trials
// on that clock (a contained trial, `pacer run`'s contained copy) refuses to start any:
//
//   pacer::refuse_child_processes();   // fork, vfork, posix_spawn, clone without CLONE_THREAD: EPERM
//   std::thread t(...);                // threads are still allowed
//
// The refusal lasts for the rest of the process (a seccomp filter cannot be lifted), so only a
// process of that kind may call it. Error when the kernel refuses to install it.
#include <string>

namespace pacer {

void refuse_child_processes();

// Whether this process refuses them (for messages: a submission's PermissionError says why).
bool child_processes_refused();

// A process that runs only untrusted code traces no other: ptrace (of the waiting `pacer`, which
// it could stop or steer) and process_vm_readv/writev fail with EPERM, on either clock, in it and
// in every process it starts (a seccomp filter is inherited). Idempotent.
void refuse_tracing();

// The words a failed trial's message gets when its process refuses child processes.
std::string child_process_refusal_hint();
// `message` with that hint added when this process refuses child processes and the message is a
// submission's PermissionError (what a refused fork raises); otherwise `message` as it is.
std::string with_child_process_hint(const std::string& message);

}  // namespace pacer
