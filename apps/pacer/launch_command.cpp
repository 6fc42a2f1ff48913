// pacer launch --nproc-per-node N [--nnodes M --node-rank R] -- CMD...: N local processes with
// torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
// MASTER_PORT) and torchrun's flags with the same meaning, so a multi-node job is one `pacer
// launch` per node. Their output is prefixed with the rank (and written per rank under
// --log-dir), Ctrl-C is forwarded; if one exits non-zero the others are stopped and launch fails.
// A rendezvous address that does not resolve, is not this machine's on node 0, or cannot be
// reached from the other nodes within --rdzv-timeout fails here with one line, before any rank
// starts (the ranks' own store would retry with a warning per attempt until its timeout).
// The supervision itself (process groups, output lines, the stop policy) is core/process_supervisor.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "input_guards.h"
#include "core/error.h"
#include "core/format.h"
#include "core/process_supervisor.h"
#include "core/spawn_error.h"

namespace pacer::cli {
namespace {

struct LaunchArgs {
  int processes = 0;  // per node
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  std::string rdzv_endpoint;  // HOST[:PORT], as torchrun's c10d/static rendezvous
  double rdzv_timeout = 60.0;
  std::string log_dir;
  double grace = 5.0;
  std::vector<std::string> command;
};

constexpr int kTorchrunDefaultPort = 29500;

std::atomic<int> g_interrupts{0};
void on_interrupt(int) { g_interrupts.fetch_add(1); }

// A port the kernel just handed out for 127.0.0.1 (free now; rank 0's store binds it next).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error(std::string("launch: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw Error(std::string("launch: cannot find a free port: ") + std::strerror(errno));
  }
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

ChildProcessOptions rank_process(const LaunchArgs& a, int local_rank, int port) {
  const int rank = a.node_rank * a.processes + local_rank;
  ChildProcessOptions child;
  child.argv = a.command;
  child.environment = {"RANK=" + std::to_string(rank),
                       "WORLD_SIZE=" + std::to_string(a.nnodes * a.processes),
                       "LOCAL_RANK=" + std::to_string(local_rank),
                       "LOCAL_WORLD_SIZE=" + std::to_string(a.processes),
                       "GROUP_RANK=" + std::to_string(a.node_rank),
                       "MASTER_ADDR=" + a.master_addr,
                       "MASTER_PORT=" + std::to_string(port)};
  child.label = "rank " + std::to_string(rank);  // output lines: "[rank r] ..."
  return child;
}

// HOST[:PORT] of --rdzv-endpoint (IPv6 in brackets: [::1]:29400) into master_addr/master_port.
void apply_rdzv_endpoint(LaunchArgs& a) {
  const std::string& text = a.rdzv_endpoint;
  auto bad = [&](const std::string& why) { return InputError("--rdzv-endpoint '" + text + "': " + why); };
  std::string host = text, port;
  bool has_port = false;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) throw bad("unclosed '['");
    const std::string rest = host.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') throw bad("expected :PORT after ']'");
    has_port = !rest.empty(), port = has_port ? rest.substr(1) : "";
    host = host.substr(1, close - 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string::npos && host.find(':') == colon) {
    has_port = true, port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty()) throw bad("no host (expected HOST[:PORT])");
  a.master_addr = host;
  if (has_port) {
    const bool digits = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
    const int value = digits ? std::stoi(port) : 0;
    if (value < 1 || value > 65535) throw bad("port '" + port + "' is not in 1-65535");
    a.master_port = value;
  }
}

// The addresses `host` resolves to (TCP); InputError naming it when it does not resolve.
std::vector<sockaddr_storage> resolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) {
    throw InputError("launch: rendezvous address '" + host + "' does not resolve: " + ::gai_strerror(rc));
  }
  std::vector<sockaddr_storage> out;
  for (addrinfo* p = found; p; p = p->ai_next) {
    sockaddr_storage s{};
    std::memcpy(&s, p->ai_addr, p->ai_addrlen);
    out.push_back(s);
  }
  ::freeaddrinfo(found);
  return out;
}

socklen_t length_of(const sockaddr_storage& s) {
  return s.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
}

// Node 0's ranks serve the rendezvous store on the address: on one node it must be one of this
// machine's; across nodes a forwarded address (a virtual IP) can work, so it is a warning there.
void check_address_is_local(const std::string& host, int port, bool one_node) {
  for (const sockaddr_storage& s : resolve(host, 0)) {
    const int fd = ::socket(s.ss_family, SOCK_STREAM, 0);
    if (fd < 0) continue;
    const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&s), length_of(s)) == 0;
    ::close(fd);
    if (ok) return;
  }
  const std::string why = "'" + host + "' (port " + std::to_string(port) +
                          ") is not an address of this machine, and node 0's ranks serve the rendezvous";
  if (one_node) throw InputError("launch: " + why + "; give this machine's address (or leave --master-addr out)");
  std::fprintf(stderr, "pacer launch: warning: %s; the other nodes must reach it there\n", why.c_str());
}

// One TCP connection attempt bounded by `seconds` (a dropped SYN would otherwise block ~2 min).
bool try_connect(const sockaddr_storage& s, double seconds, std::string& error) {
  const int fd = ::socket(s.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&s), length_of(s)) == 0;
  if (!ok && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(seconds * 1000)) == 1) {
      int so_error = 0;
      socklen_t len = sizeof(so_error);
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
      ok = so_error == 0;
      if (!ok) error = std::strerror(so_error);
    } else {
      error = "no answer";
    }
  } else if (!ok) {
    error = std::strerror(errno);
  }
  ::close(fd);
  return ok;
}

// Other nodes wait until node 0's store accepts connections, at most `timeout` seconds; false
// when interrupted first.
bool wait_for_rendezvous(const std::string& host, int port, double timeout, const std::atomic<int>& interrupts) {
  const auto addresses = resolve(host, port);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout);
  std::string last_error = "no address";
  bool announced = false;
  while (interrupts.load() == 0) {
    for (const sockaddr_storage& s : addresses) {
      const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      if (try_connect(s, std::clamp(left, 0.05, 1.0), last_error)) return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw InputError("launch: cannot reach the rendezvous at " + host + ":" + std::to_string(port) + " (" +
                       last_error + ") within " + format_double("%g", timeout) +
                       " s; is `pacer launch --node-rank 0` running there, with the same --master-port?");
    }
    if (!announced) {
      std::fprintf(stderr, "pacer launch: waiting for node 0 at %s:%d (up to %g s)\n", host.c_str(), port, timeout);
      announced = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
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
  app.add_option("-n,--nproc,--nproc-per-node,--nproc_per_node", a->processes,
                 "Processes on this node (local ranks 0..N-1)")
      ->required()
      ->check(CLI::Range(1, 1024));
  app.add_option("--nnodes", a->nnodes, "Nodes in the job, one `pacer launch` each (torchrun's meaning)")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  app.add_option("--node-rank,--node_rank", a->node_rank, "This node's index, 0..nnodes-1 (node 0 serves the rendezvous)")
      ->check(non_negative_number())
      ->capture_default_str();
  auto* master_addr =
      app.add_option("--master-addr,--master_addr", a->master_addr, "Rendezvous address (node 0's)")->capture_default_str();
  auto* master_port = app.add_option("--master-port,--master_port", a->master_port,
                 "Rendezvous port (default: a free port on one node, 29500 across nodes)")
      ->check(CLI::Range(0, 65535));
  app.add_option("--rdzv-endpoint,--rdzv_endpoint", a->rdzv_endpoint, "HOST[:PORT]: the same as --master-addr/--master-port")
      ->excludes(master_addr)
      ->excludes(master_port);
  app.add_option("--rdzv-timeout,--rdzv_timeout", a->rdzv_timeout,
                 "Seconds the other nodes wait for node 0's rendezvous before failing")
      ->check(positive_number())
      ->capture_default_str();
  app.add_option("--log-dir,--log_dir", a->log_dir, "Also write each rank's output to DIR/rank_<RANK>.log");
  app.add_option("--grace", a->grace, "Seconds between SIGTERM and SIGKILL when stopping the others")
      ->check(positive_number())->capture_default_str();
  app.add_option("command", a->command, "The command each rank runs (after --)")->required()->expected(-1);
  app.footer(
      "Example: pacer launch -n 4 -- build/pacer run -w fmnist_mlp -a momentum --combine adasum --out runs/dp4\n"
      "Two nodes: pacer launch --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr node0 --master-port 29500 -- ...\n"
      "           pacer launch --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr node0 --master-port 29500 -- ...");

  return [a]() -> int {
    if (a->node_rank >= a->nnodes) {
      throw InputError("--node-rank " + std::to_string(a->node_rank) + ": must be below --nnodes " +
                       std::to_string(a->nnodes));
    }
    if (!a->rdzv_endpoint.empty()) apply_rdzv_endpoint(*a);
    // One node: any free port will do. Several: every node must name the same one (torchrun's default).
    const int port = a->master_port > 0 ? a->master_port : a->nnodes > 1 ? kTorchrunDefaultPort : free_port();
    if (a->node_rank == 0) check_address_is_local(a->master_addr, port, a->nnodes == 1);
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    struct sigaction old_int {}, old_term {};
    sigaction(SIGINT, &action, &old_int);
    sigaction(SIGTERM, &action, &old_term);
    if (a->node_rank > 0 && !wait_for_rendezvous(a->master_addr, port, a->rdzv_timeout, g_interrupts)) {
      sigaction(SIGINT, &old_int, nullptr);
      sigaction(SIGTERM, &old_term, nullptr);
      std::fprintf(stderr, "pacer launch: interrupted while waiting for node 0\n");
      return 130;
    }

    std::map<std::string, std::ofstream> logs;  // by label
    if (!a->log_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(a->log_dir, ec);
      for (int r = 0; r < a->processes; ++r) {
        const int rank = a->node_rank * a->processes + r;
        const std::string path = a->log_dir + "/rank_" + std::to_string(rank) + ".log";
        std::ofstream file(path, std::ios::trunc);
        if (!file) throw InputError("--log-dir: cannot write " + path);
        logs.emplace("rank " + std::to_string(rank), std::move(file));
      }
    }

    if (a->nnodes > 1) {
      std::fprintf(stderr, "pacer launch: node %d of %d, %d processes (ranks %d-%d of %d), rendezvous %s:%d\n",
                   a->node_rank, a->nnodes, a->processes, a->node_rank * a->processes,
                   (a->node_rank + 1) * a->processes - 1, a->nnodes * a->processes, a->master_addr.c_str(), port);
    } else {
      std::fprintf(stderr, "pacer launch: %d processes, rendezvous %s:%d\n", a->processes, a->master_addr.c_str(), port);
    }
    ProcessSupervisorOptions options;
    options.grace_sec = a->grace;
    options.interrupt_count = [] { return g_interrupts.load(); };
    options.on_event = [grace = a->grace](const SupervisorEvent& e) { report(e, grace); };
    if (!logs.empty()) {
      options.on_line = [&logs](const std::string& label, const std::string& line) {
        std::fprintf(stdout, "[%s] %s\n", label.c_str(), line.c_str());
        std::fflush(stdout);
        auto it = logs.find(label);
        if (it != logs.end()) it->second << line << '\n' << std::flush;
      };
    }
    ProcessSupervisor supervisor(options);  // on an exception: the ranks started so far are killed
    for (int r = 0; r < a->processes; ++r) {
      try {
        supervisor.spawn(rank_process(*a, r, port));
      } catch (const SpawnError& e) {
        throw InputError(std::string("launch: ") + e.what());
      }
    }
    const int result = supervisor.run();
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (result != 0) {
      std::string codes;
      for (size_t r = 0; r < supervisor.children().size(); ++r)
        codes += (codes.empty() ? "" : ", ") + std::to_string(a->node_rank * a->processes + static_cast<int>(r)) + ":" +
                 std::to_string(supervisor.children()[r].exit_code);
      std::fprintf(stderr, "pacer launch: failed (exit status by rank: %s)\n", codes.c_str());
    }
    return result;
  };
}

}  // namespace pacer::cli
