// pacer launch -n N -- CMD...: N local processes with torchrun-style variables (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), their output prefixed with
// the rank, Ctrl-C forwarded; if one exits non-zero the others are stopped and launch fails.
// The supervision itself (process groups, output lines, the stop policy) is core/process_supervisor.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "core/error.h"
#include "core/process_supervisor.h"
#include "core/spawn_error.h"

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

ChildProcessOptions rank_process(const LaunchArgs& a, int rank, int port) {
  ChildProcessOptions child;
  child.argv = a.command;
  child.environment = {"RANK=" + std::to_string(rank),
                       "WORLD_SIZE=" + std::to_string(a.processes),
                       "LOCAL_RANK=" + std::to_string(rank),
                       "LOCAL_WORLD_SIZE=" + std::to_string(a.processes),
                       "MASTER_ADDR=" + a.master_addr,
                       "MASTER_PORT=" + std::to_string(port)};
  child.label = "rank " + std::to_string(rank);  // output lines: "[rank r] ..."
  return child;
}

void report(const SupervisorEvent& e, double grace) {
  switch (e.kind) {
    case SupervisorEvent::Kind::interrupt_forwarded:
      std::fprintf(stderr, "pacer launch: interrupt, forwarding to %zu rank(s)\n", e.running);
      break;
    case SupervisorEvent::Kind::stopping_others:
      std::fprintf(stderr, "pacer launch: rank %zu exited with status %d; stopping the other ranks\n", e.child,
                   e.exit_code);
      break;
    case SupervisorEvent::Kind::interrupt_grace_expired:
      std::fprintf(stderr, "pacer launch: %zu rank(s) still running %.0f s after the interrupt; stopping them\n",
                   e.running, grace);
      break;
    case SupervisorEvent::Kind::killing:
      break;
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
    ProcessSupervisorOptions options;
    options.grace_sec = a->grace;
    options.interrupt_count = [] { return g_interrupts.load(); };
    options.on_event = [grace = a->grace](const SupervisorEvent& e) { report(e, grace); };
    ProcessSupervisor supervisor(options);  // on an exception: the ranks started so far are killed
    for (int r = 0; r < a->processes; ++r) {
      try {
        supervisor.spawn(rank_process(*a, r, port));
      } catch (const SpawnError& e) {
        throw InputError(std::string("pacer launch: ") + e.what());
      }
    }
    const int result = supervisor.run();
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (result != 0) {
      std::string codes;
      for (size_t r = 0; r < supervisor.children().size(); ++r)
        codes += (codes.empty() ? "" : ", ") + std::to_string(r) + ":" + std::to_string(supervisor.children()[r].exit_code);
      std::fprintf(stderr, "pacer launch: failed (exit status by rank: %s)\n", codes.c_str());
    }
    return result;
  };
}

}  // namespace pacer::cli
