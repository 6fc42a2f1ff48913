#include "core/process_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>

#include "core/error.h"
#include "core/spawn_error.h"

extern char** environ;

namespace pacer {
namespace {

// Every supervisor's unreaped children, for with_supervised_children.
std::mutex supervised_mutex;
std::set<pid_t>& supervised() {
  static std::set<pid_t> pids;
  return pids;
}

void forget_supervised(pid_t pid) {
  const std::lock_guard<std::mutex> lock(supervised_mutex);
  supervised().erase(pid);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string variable_name(const std::string& assignment) { return assignment.substr(0, assignment.find('=')); }

// Our environment without the variables the child sets, then the child's: one value per name.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || variable_name(entry) == variable_name(x);
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

}  // namespace

ProcessSupervisor::ProcessSupervisor(ProcessSupervisorOptions options) : options_(std::move(options)) {
  if (!(options_.grace_sec >= 0.0) || !std::isfinite(options_.grace_sec))
    throw InputError("process supervisor: grace period must be a finite number of seconds >= 0, got " +
                     std::to_string(options_.grace_sec));
  if (!(options_.poll_interval_sec > 0.0) || !std::isfinite(options_.poll_interval_sec))
    throw InputError("process supervisor: poll interval must be a finite number of seconds > 0, got " +
                     std::to_string(options_.poll_interval_sec));
}

void with_supervised_children(const std::function<void(const std::set<pid_t>&)>& fn) {
  const std::lock_guard<std::mutex> lock(supervised_mutex);
  fn(supervised());
}

ProcessSupervisor::~ProcessSupervisor() {
  for (auto& c : children_) {
    if (!c.running) continue;
    ::kill(-c.pid, SIGKILL);
    while (::waitpid(c.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    c.running = false;
    forget_supervised(c.pid);
  }
  for (auto& o : outputs_) {
    if (o.fd >= 0) ::close(o.fd);
  }
}

size_t ProcessSupervisor::spawn(const ChildProcessOptions& child) {
  if (child.argv.empty() || child.argv[0].empty()) {
    throw InputError("cannot start a child process" + (child.label.empty() ? "" : " (" + child.label + ")") +
                     ": empty command");
  }
  int fds[2] = {-1, -1};
  // Both ends close on exec: only the dup2'ed copies (the child's 1 and 2) stay open in a child,
  // so a later child never holds an earlier one's pipe open past its EOF.
  if (child.capture_output && ::pipe2(fds, O_CLOEXEC) != 0) {
    const int err = errno;
    throw Error("cannot start '" + child.argv[0] + "'" + (child.label.empty() ? "" : " (" + child.label + ")") +
                ": pipe: " + std::strerror(err));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (child.capture_output) {
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  }
  for (const auto& [ours, theirs] : child.inherited_fds) posix_spawn_file_actions_adddup2(&actions, ours, theirs);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);  // own process group: a Ctrl-C reaches it once, from us
  // The signals we forward take their default action in the child even where we were started
  // with them ignored (a background job of a script ignores SIGINT, and exec keeps that).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args = child.argv;
  std::vector<std::string> env = child_environment(child.environment);
  std::vector<char*> argv = pointers(args), envp = pointers(env);
  children_.reserve(children_.size() + 1);  // no allocation failure after the child exists
  outputs_.reserve(outputs_.size() + 1);
  pid_t pid = -1;
  const std::string& executable = child.executable.empty() ? child.argv[0] : child.executable;
  std::unique_lock<std::mutex> registering(supervised_mutex);  // no orphan reaper sees it unregistered
  const int rc = posix_spawnp(&pid, executable.c_str(), &actions, &attr, argv.data(), envp.data());
  if (rc == 0) supervised().insert(pid);
  registering.unlock();
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (fds[1] >= 0) ::close(fds[1]);
  if (rc != 0) {
    if (fds[0] >= 0) ::close(fds[0]);
    throw SpawnError(executable, rc);
  }
  ChildStatus status;
  status.label = child.label;
  status.pid = pid;
  children_.push_back(status);
  Output output;
  output.fd = fds[0];
  outputs_.push_back(output);
  ++running_;
  if (output.fd >= 0) ++open_pipes_;
  return children_.size() - 1;
}

void ProcessSupervisor::signal_running(int signal_number) {
  for (const auto& c : children_) {
    if (c.running) ::kill(-c.pid, signal_number);  // the whole process group: a shell's children too
  }
}

void ProcessSupervisor::interrupt() {
  report(SupervisorEvent::Kind::interrupt_forwarded);
  signal_running(SIGINT);
  ++forwarded_;
}

bool ProcessSupervisor::step() {
  if (done()) return false;
  if (options_.interrupt_count) {
    for (const int n = options_.interrupt_count(); interrupts_seen_ < n; ++interrupts_seen_) interrupt();
  }
  read_output();
  reap();
  apply_deadline();
  return !done();
}

int ProcessSupervisor::run() {
  while (step()) {
  }
  return result_;
}

void ProcessSupervisor::read_output() {
  std::vector<pollfd> polls;
  std::vector<size_t> owners;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].fd >= 0) {
      polls.push_back({outputs_[i].fd, POLLIN, 0});
      owners.push_back(i);
    }
  }
  const int timeout_ms = static_cast<int>(std::lround(options_.poll_interval_sec * 1000.0));
  if (!polls.empty()) {
    ::poll(polls.data(), polls.size(), timeout_ms);  // EINTR (a Ctrl-C): the next step forwards it
  } else {
    ::usleep(static_cast<useconds_t>(timeout_ms) * 1000);
  }
  for (size_t k = 0; k < polls.size(); ++k) {
    if (!(polls[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Output& output = outputs_[owners[k]];
    char buffer[65536];
    const ssize_t n = ::read(output.fd, buffer, sizeof(buffer));
    if (n > 0) {
      deliver(owners[k], buffer, static_cast<size_t>(n), false);
    } else if (n == 0 || errno != EINTR) {
      deliver(owners[k], "", 0, true);
      ::close(output.fd);
      output.fd = -1;
      --open_pipes_;
    }
  }
}

void ProcessSupervisor::deliver(size_t child, const char* data, size_t size, bool at_eof) {
  const std::string& label = children_[child].label;
  auto line_out = [&](const char* begin, size_t length) {
    std::string line(begin, length);
    if (options_.on_line) {
      options_.on_line(label, line);
    } else {
      const std::string text = "[" + label + "] " + line + "\n";
      std::fwrite(text.data(), 1, text.size(), options_.output);
    }
  };
  std::string& pending = outputs_[child].pending;
  pending.append(data, size);
  size_t start = 0;
  for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    line_out(pending.data() + start, nl - start);
  }
  pending.erase(0, start);
  if (at_eof && !pending.empty()) {
    line_out(pending.data(), pending.size());
    pending.clear();
  }
  // Lines of several children interleave line by line, as they arrive.
  if (!options_.on_line) std::fflush(options_.output);
}

void ProcessSupervisor::reap() {
  for (size_t i = 0; i < children_.size(); ++i) {
    ChildStatus& c = children_[i];
    if (!c.running) continue;
    int status = 0;
    const pid_t r = ::waitpid(c.pid, &status, WNOHANG);
    if (r < 0 && errno == ECHILD) {
      // Someone else reaped it (SIGCHLD ignored?): its exit code is lost, and waiting on would hang.
      throw Error("process supervisor: lost track of child " + std::to_string(c.pid) +
                  (c.label.empty() ? "" : " (" + c.label + ")") + ": waitpid: " + std::strerror(ECHILD));
    }
    if (r != c.pid) continue;
    c.running = false;
    forget_supervised(c.pid);
    --running_;
    c.exit_code = exit_code_of(status);
    on_exit(i);
  }
}

void ProcessSupervisor::on_exit(size_t child) {
  const int code = children_[child].exit_code;
  if (code == 0 || result_ != 0) return;
  result_ = code;
  if (!options_.stop_others_on_failure || running_ == 0 || stopping_) return;
  stopping_ = true;
  deadline_ = grace_from_now();
  // After a forwarded Ctrl-C every child stops on its own and may still be writing what it
  // measured: one leaving first with 130 is expected, so the others get the grace period before
  // anything is sent to them.
  const bool expected_interrupt = forwarded_ > 0 && code == 128 + SIGINT;
  if (expected_interrupt) {
    term_pending_ = true;
  } else {
    report(SupervisorEvent::Kind::stopping_others, child, code);
    signal_running(SIGTERM);
  }
}

void ProcessSupervisor::apply_deadline() {
  if (!stopping_ || running_ == 0 || Clock::now() <= deadline_) return;
  if (term_pending_) {
    report(SupervisorEvent::Kind::interrupt_grace_expired);
    signal_running(SIGTERM);
    term_pending_ = false;
    deadline_ = grace_from_now();
  } else {
    report(SupervisorEvent::Kind::killing);
    signal_running(SIGKILL);
    deadline_ = Clock::time_point::max();
  }
}

void ProcessSupervisor::report(SupervisorEvent::Kind kind, size_t child, int exit_code) {
  if (!options_.on_event) return;
  SupervisorEvent event;
  event.kind = kind;
  event.child = child;
  event.exit_code = exit_code;
  event.running = running_;
  options_.on_event(event);
}

ProcessSupervisor::Clock::time_point ProcessSupervisor::grace_from_now() const {
  return Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(options_.grace_sec * 1000));
}

}  // namespace pacer
