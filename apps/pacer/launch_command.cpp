// pacer launch -n N -- CMD...: N local processes with torchrun-style variables (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), their output prefixed with
// the rank, Ctrl-C forwarded; if one exits non-zero the others are stopped and launch fails.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "core/error.h"

extern char** environ;

namespace pacer::cli {
namespace {

struct LaunchArgs {
  int processes = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  double grace = 5.0;
  std::vector<std::string> command;
};

std::atomic<int> g_interrupts{0};
void on_interrupt(int) { g_interrupts.fetch_add(1); }

// A port the kernel just handed out for 127.0.0.1 (free now; rank 0's store binds it next).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error(std::string("pacer launch: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw Error(std::string("pacer launch: cannot find a free port: ") + std::strerror(errno));
  }
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

struct Child {
  int rank = 0;
  pid_t pid = -1;
  int out_fd = -1;       // read end of the child's stdout+stderr
  std::string pending;   // an incomplete last line
  bool running = true;
  int exit_code = 0;
};

void print_lines(Child& c, const char* data, size_t n, bool flush) {
  c.pending.append(data, n);
  size_t start = 0;
  for (size_t nl; (nl = c.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::printf("[rank %d] %.*s\n", c.rank, static_cast<int>(nl - start), c.pending.data() + start);
  }
  c.pending.erase(0, start);
  if (flush && !c.pending.empty()) {
    std::printf("[rank %d] %s\n", c.rank, c.pending.c_str());
    c.pending.clear();
  }
  std::fflush(stdout);
}

std::vector<std::string> child_environment(const LaunchArgs& a, int rank, int port) {
  const char* ours[] = {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "LOCAL_WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT="};
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    bool replaced = false;
    for (const char* prefix : ours) replaced = replaced || std::strncmp(*e, prefix, std::strlen(prefix)) == 0;
    if (!replaced) env.emplace_back(*e);
  }
  env.push_back("RANK=" + std::to_string(rank));
  env.push_back("WORLD_SIZE=" + std::to_string(a.processes));
  env.push_back("LOCAL_RANK=" + std::to_string(rank));
  env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(a.processes));
  env.push_back("MASTER_ADDR=" + a.master_addr);
  env.push_back("MASTER_PORT=" + std::to_string(port));
  return env;
}

Child spawn(const LaunchArgs& a, int rank, int port) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(std::string("pacer launch: pipe: ") + std::strerror(errno));
  ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);  // own process group: a Ctrl-C reaches it once, from us
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  std::vector<char*> argv;
  for (const auto& s : a.command) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  const std::vector<std::string> env = child_environment(a, rank, port);
  std::vector<char*> envp;
  for (const auto& s : env) envp.push_back(const_cast<char*>(s.c_str()));
  envp.push_back(nullptr);
  Child c;
  c.rank = rank;
  const int rc = posix_spawnp(&c.pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw InputError("pacer launch: cannot start '" + a.command[0] + "': " + std::strerror(rc));
  }
  c.out_fd = fds[0];
  return c;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void signal_running(std::vector<Child>& children, int sig) {
  for (auto& c : children) {
    if (c.running) ::kill(-c.pid, sig);  // the whole process group: a shell's children too
  }
}

}  // namespace

Action add_launch_command(CLI::App& app) {
  auto a = std::make_shared<LaunchArgs>();
  app.add_option("-n,--nproc", a->processes, "Number of processes (ranks 0..N-1)")->required()->check(CLI::Range(1, 1024));
  app.add_option("--master-addr", a->master_addr, "Rendezvous address")->capture_default_str();
  app.add_option("--master-port", a->master_port, "Rendezvous port (default: a free port)")->check(CLI::Range(0, 65535));
  app.add_option("--grace", a->grace, "Seconds between SIGTERM and SIGKILL when stopping the others")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("command", a->command, "The command each rank runs (after --)")->required()->expected(-1);
  app.footer("Example: pacer launch -n 4 -- build/pacer run -w fmnist_mlp -a momentum --combine adasum --out runs/dp4");

  return [a]() -> int {
    const int port = a->master_port > 0 ? a->master_port : free_port();
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    struct sigaction old_int {}, old_term {};
    sigaction(SIGINT, &action, &old_int);
    sigaction(SIGTERM, &action, &old_term);

    std::fprintf(stderr, "pacer launch: %d processes, rendezvous %s:%d\n", a->processes, a->master_addr.c_str(), port);
    std::vector<Child> children;
    for (int r = 0; r < a->processes; ++r) {
      try {
        children.push_back(spawn(*a, r, port));
      } catch (...) {
        signal_running(children, SIGKILL);
        for (auto& c : children) ::waitpid(c.pid, nullptr, 0);
        throw;
      }
    }

    int result = 0;
    int forwarded = 0;
    bool stopping = false;
    bool escalate_to_term = false;  // the interrupt path: SIGTERM first, SIGKILL a grace period later
    auto stop_deadline = std::chrono::steady_clock::time_point::max();
    size_t open_pipes = children.size();
    size_t running = children.size();
    while (running > 0 || open_pipes > 0) {
      // Ctrl-C / SIGTERM: pass each one on to every rank.
      for (int n = g_interrupts.load(); forwarded < n; ++forwarded) {
        std::fprintf(stderr, "pacer launch: interrupt, forwarding to %zu rank(s)\n", running);
        signal_running(children, SIGINT);
      }
      std::vector<pollfd> polls;
      std::vector<Child*> owners;
      for (auto& c : children) {
        if (c.out_fd >= 0) {
          polls.push_back({c.out_fd, POLLIN, 0});
          owners.push_back(&c);
        }
      }
      if (!polls.empty()) ::poll(polls.data(), polls.size(), 100);
      else ::usleep(100 * 1000);
      for (size_t i = 0; i < polls.size(); ++i) {
        if (!(polls[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buffer[65536];
        const ssize_t n = ::read(polls[i].fd, buffer, sizeof(buffer));
        if (n > 0) {
          print_lines(*owners[i], buffer, static_cast<size_t>(n), false);
        } else if (n == 0 || errno != EINTR) {
          print_lines(*owners[i], "", 0, true);
          ::close(owners[i]->out_fd);
          owners[i]->out_fd = -1;
          --open_pipes;
        }
      }
      for (auto& c : children) {
        if (!c.running) continue;
        int status = 0;
        if (::waitpid(c.pid, &status, WNOHANG) != c.pid) continue;
        c.running = false;
        --running;
        c.exit_code = exit_code_of(status);
        if (c.exit_code != 0 && result == 0) {
          result = c.exit_code;
          // After a forwarded Ctrl-C every rank stops on its own and rank 0 still writes what was
          // measured: a rank leaving first with 130 is expected, so the others get the grace period
          // before anything is sent to them.
          const bool expected_interrupt = forwarded > 0 && c.exit_code == 128 + SIGINT;
          if (expected_interrupt && running > 0 && !stopping) {
            stopping = true;
            escalate_to_term = true;
            stop_deadline = std::chrono::steady_clock::now() +
                            std::chrono::milliseconds(static_cast<int64_t>(a->grace * 1000));
          } else if (running > 0 && !stopping) {
            std::fprintf(stderr, "pacer launch: rank %d exited with status %d; stopping the other ranks\n", c.rank,
                         c.exit_code);
            signal_running(children, SIGTERM);
            stopping = true;
            stop_deadline = std::chrono::steady_clock::now() +
                            std::chrono::milliseconds(static_cast<int64_t>(a->grace * 1000));
          }
        }
      }
      if (stopping && running > 0 && std::chrono::steady_clock::now() > stop_deadline) {
        if (escalate_to_term) {
          std::fprintf(stderr, "pacer launch: %zu rank(s) still running %.0f s after the interrupt; stopping them\n",
                       running, a->grace);
          signal_running(children, SIGTERM);
          escalate_to_term = false;
          stop_deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(a->grace * 1000));
        } else {
          signal_running(children, SIGKILL);
          stop_deadline = std::chrono::steady_clock::time_point::max();
        }
      }
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (result != 0) {
      std::string codes;
      for (const auto& c : children) codes += (codes.empty() ? "" : ", ") + std::to_string(c.rank) + ":" + std::to_string(c.exit_code);
      std::fprintf(stderr, "pacer launch: failed (exit status by rank: %s)\n", codes.c_str());
    }
    return result;
  };
}

}  // namespace pacer::cli
