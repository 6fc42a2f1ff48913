#include "core/child_processes.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>

#include <atomic>
#include <cstring>
#include <memory>

#include "core/error.h"

namespace pacer {
namespace {

std::atomic<bool> refused{false};

// LeakSanitizer checks for leaks at exit from a task it clones with CLONE_VM and without
// CLONE_THREAD or CLONE_VFORK; the sanitizer builds of the test suite keep that one kind.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kLeakCheckerClones = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
constexpr bool kLeakCheckerClones = true;
#else
constexpr bool kLeakCheckerClones = false;
#endif
#else
constexpr bool kLeakCheckerClones = false;
#endif

void add(scmp_filter_ctx filter, uint32_t action, int syscall, std::initializer_list<scmp_arg_cmp> args = {}) {
  const int rc = seccomp_rule_add_array(filter, action, syscall, static_cast<unsigned>(args.size()),
                                        args.size() ? args.begin() : nullptr);
  if (rc != 0) throw Error(std::string("cannot refuse child processes: seccomp_rule_add: ") + std::strerror(-rc));
}

// Loads `filter` on every thread of this process, those LibTorch already started included. A call
// of another ABI (x32 on x86_64: the filter cannot read it as one of its own) kills the whole
// process: libseccomp's default kills only the calling thread, which left the submission's other
// threads, and `pacer run` waiting on them, running for ever. `what` names the refusal in errors.
void install(scmp_filter_ctx filter, const std::string& what) {
  // The filter needs no privilege with no_new_privs set (it also keeps set-user-ID programs from gaining any).
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    throw Error("cannot refuse " + what + ": PR_SET_NO_NEW_PRIVS: " + std::strerror(errno));
  }
  if (seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) {
    throw Error("cannot refuse " + what + ": this kernel cannot kill a process from a filter");
  }
  if (seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1) != 0) {
    throw Error("cannot refuse " + what + ": this kernel cannot apply a filter to every thread");
  }
  if (const int rc = seccomp_load(filter); rc != 0) {
    throw Error("cannot refuse " + what + ": seccomp_load: " + std::strerror(-rc));
  }
}

}  // namespace

void refuse_child_processes() {
  if (refused) return;
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> filter(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!filter) throw Error("cannot refuse child processes: seccomp_init failed");
  const uint32_t refuse = SCMP_ACT_ERRNO(EPERM);
  add(filter.get(), refuse, SCMP_SYS(fork));
  add(filter.get(), refuse, SCMP_SYS(vfork));
  // clone3 passes its flags in memory a filter cannot read: ENOSYS sends glibc back to clone
  // (pthread_create and posix_spawn both fall back), whose flags it can.
  add(filter.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3));
  const scmp_datum_t kind = CLONE_THREAD | CLONE_VM | CLONE_VFORK;
  // clone(2) makes a new process unless CLONE_THREAD is set: refuse each flag combination without it.
  for (scmp_datum_t flags : {scmp_datum_t{0}, scmp_datum_t{CLONE_VM}, scmp_datum_t{CLONE_VFORK},
                             scmp_datum_t{CLONE_VM | CLONE_VFORK}}) {
    if (kLeakCheckerClones && flags == CLONE_VM) continue;
    add(filter.get(), refuse, SCMP_SYS(clone), {SCMP_A0(SCMP_CMP_MASKED_EQ, kind, flags)});
  }
  install(filter.get(), "child processes");
  refused = true;
}

bool child_processes_refused() { return refused; }

void refuse_tracing() {
  static std::atomic<bool> done{false};
  if (done) return;
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> filter(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!filter) throw Error("cannot refuse tracing: seccomp_init failed");
  for (const int call : {SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev)}) {
    // LeakSanitizer's check at exit suspends the process's threads with ptrace: the sanitizer
    // builds of the test suite keep ptrace (and only that).
    if (kLeakCheckerClones && call == SCMP_SYS(ptrace)) continue;
    if (const int rc = seccomp_rule_add(filter.get(), SCMP_ACT_ERRNO(EPERM), call, 0); rc != 0) {
      throw Error(std::string("cannot refuse tracing: seccomp_rule_add: ") + std::strerror(-rc));
    }
  }
  install(filter.get(), "tracing");
  done = true;
}

std::string with_child_process_hint(const std::string& message) {
  if (!child_processes_refused() || message.find("PermissionError") == std::string::npos) return message;
  return message + " (" + child_process_refusal_hint() + ")";
}

std::string child_process_refusal_hint() {
  return "a trial timed by the cpu clock may start no process, since its work would not be counted: fork, "
         "subprocess and os.system fail with PermissionError; --clock wall allows them";
}

}  // namespace pacer
