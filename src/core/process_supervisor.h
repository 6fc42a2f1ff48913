#pragma once
// Supervision of local child processes, as `pacer launch` (N ranks) and `pacer tune --workers N`
// need it: each child is started with posix_spawn in its own process group (a terminal's Ctrl-C
// then reaches it once, through us, and a signal we send reaches a shell's children too); its
// stdout+stderr can be captured and handed on as complete lines with the child's label; Ctrl-C
// is forwarded to every running child; and when one child fails the others are stopped (SIGTERM,
// then SIGKILL a grace period later). Exit codes are reported by child, 128 + N for a child
// killed by signal N, as a shell reports them.
//
// After a forwarded interrupt every child is expected to stop on its own and may need time to
// write what it measured, so a child that then exits with 130 (128 + SIGINT) is not a failure
// that stops the others at once: they get the grace period, then SIGTERM, then after another
// grace period SIGKILL.
//
// The caller owns the signal handlers (the supervisor only polls `interrupt_count`), so it works
// under any handler the command installs, and in tests without any.
//
//   std::atomic<int> interrupts{0};  // incremented by the command's SIGINT/SIGTERM handler
//   pacer::ProcessSupervisorOptions options;
//   options.grace_sec = 5.0;
//   options.interrupt_count = [&] { return interrupts.load(); };
//   options.on_event = [](const pacer::SupervisorEvent& e) { ... print what happened ... };
//   pacer::ProcessSupervisor supervisor(options);
//   for (int r = 0; r < 4; ++r) {
//     pacer::ChildProcessOptions child;
//     child.argv = {"build/pacer", "run", "-w", "fmnist_mlp", "-a", "momentum"};
//     child.environment = {"RANK=" + std::to_string(r), "WORLD_SIZE=4"};
//     child.label = "rank " + std::to_string(r);  // output lines: "[rank 2] ..."
//     supervisor.spawn(child);
//   }
//   const int status = supervisor.run();  // 0, or the first failing child's exit code
//   for (const auto& c : supervisor.children()) std::printf("%s: %d\n", c.label.c_str(), c.exit_code);
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pacer {

// Something the supervisor did on its own, for the caller to report.
struct SupervisorEvent {
  enum class Kind {
    interrupt_forwarded,      // SIGINT sent to every running child (`running` of them)
    stopping_others,          // `child` exited with `exit_code`; SIGTERM sent to the `running` others
    interrupt_grace_expired,  // `running` children still running a grace period after an interrupted
                              // child left; SIGTERM sent to them
    killing,                  // `running` children still running a grace period after SIGTERM; SIGKILL sent
  };
  Kind kind = Kind::interrupt_forwarded;
  size_t child = 0;    // stopping_others: index of the child that failed
  int exit_code = 0;   // stopping_others: its exit code
  size_t running = 0;  // children running when it happened (the ones signalled)
};

struct ProcessSupervisorOptions {
  // Seconds between SIGTERM and SIGKILL when stopping children, and after an interrupted child
  // left before the others get SIGTERM.
  double grace_sec = 5.0;
  // When a child exits non-zero, stop the others (launch: ranks are useless alone). Off: every
  // child runs until it exits on its own (tune workers: the others finish the studies).
  bool stop_others_on_failure = true;
  // Longest wait of one step() for output or exits.
  double poll_interval_sec = 0.1;
  // How many interrupts (Ctrl-C, SIGTERM) the caller has received so far; each new one is
  // forwarded to the children as SIGINT. Unset: only explicit interrupt() calls.
  std::function<int()> interrupt_count;
  // A complete line of a captured child's output (without the '\n'; a last line without one is
  // delivered at EOF). Unset: written to `output` as "[label] line".
  std::function<void(const std::string& label, const std::string& line)> on_line;
  std::FILE* output = stdout;
  // Reports of what the supervisor did (see SupervisorEvent). Unset: nothing is reported.
  std::function<void(const SupervisorEvent&)> on_event;
};

struct ChildProcessOptions {
  std::vector<std::string> argv;         // the command line, argv[0] included
  std::string executable;                // the file to run; empty: argv[0], looked up in PATH when it has no '/'
  std::vector<std::string> environment;  // "NAME=VALUE", added to (or replacing) ours
  std::string label;                     // names the child in output lines
  bool capture_output = true;            // false: the child writes to our stdout and stderr
  // Descriptors handed to the child: {ours, its number there} (a contained trial's channel to its
  // worker, as 3). Every other descriptor of ours that closes on exec stays closed there.
  std::vector<std::pair<int, int>> inherited_fds;
};

struct ChildStatus {
  std::string label;
  pid_t pid = -1;
  bool running = true;
  int exit_code = 0;  // once exited: its exit status, or 128 + N when killed by signal N
};

// Runs `fn` with the pids of the children every ProcessSupervisor of this process started and has
// not reaped, while none starts or reaps one (core/orphan_reaper.h tells them from adopted orphans).
void with_supervised_children(const std::function<void(const std::set<pid_t>&)>& fn);

class ProcessSupervisor {
 public:
  explicit ProcessSupervisor(ProcessSupervisorOptions options = {});
  // Children still running are killed (SIGKILL to their process groups) and reaped: an exception
  // in the caller leaves no orphans behind.
  ~ProcessSupervisor();
  ProcessSupervisor(const ProcessSupervisor&) = delete;
  ProcessSupervisor& operator=(const ProcessSupervisor&) = delete;

  // Starts a child; returns its index in children(). Throws SpawnError (core/spawn_error.h) when
  // the program cannot be started, InputError for an empty argv, Error when a pipe fails.
  size_t spawn(const ChildProcessOptions& child);

  // Sends `signal_number` to the process group of every running child.
  void signal_running(int signal_number);
  // Forwards an interrupt: SIGINT to every running child, counted for the expected-interrupt rule.
  void interrupt();

  // One round: forwards new interrupts, waits up to poll_interval_sec for output, reaps exited
  // children and applies the stop policy. Returns false once every child has exited and all
  // captured output is delivered.
  bool step();
  // step() until done. Returns 0, or the exit code of the first child seen exiting non-zero.
  int run();

  bool done() const { return running_ == 0 && open_pipes_ == 0; }
  size_t running() const { return running_; }
  int result() const { return result_; }  // as run() returns it, so far
  const std::vector<ChildStatus>& children() const { return children_; }

 private:
  struct Output {
    int fd = -1;          // read end of the child's stdout+stderr pipe; -1: not captured or closed
    std::string pending;  // an incomplete last line
  };
  using Clock = std::chrono::steady_clock;

  void read_output();
  void deliver(size_t child, const char* data, size_t size, bool at_eof);
  void reap();
  void on_exit(size_t child);
  void apply_deadline();
  void report(SupervisorEvent::Kind kind, size_t child = 0, int exit_code = 0);
  Clock::time_point grace_from_now() const;

  ProcessSupervisorOptions options_;
  std::vector<ChildStatus> children_;
  std::vector<Output> outputs_;
  size_t running_ = 0;
  size_t open_pipes_ = 0;
  int result_ = 0;
  int interrupts_seen_ = 0;  // of options_.interrupt_count()
  int forwarded_ = 0;        // interrupts forwarded to the children
  bool stopping_ = false;
  bool term_pending_ = false;  // the interrupt path: SIGTERM is still to come at the deadline
  Clock::time_point deadline_ = Clock::time_point::max();
};

}  // namespace pacer
