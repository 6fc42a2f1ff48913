// pacer launch --nproc-per-node N [--nnodes M --node-rank R] -- CMD...: N local processes with
// torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
// MASTER_PORT) and torchrun's flags with the same meaning, so a multi-node job is one `pacer
// launch` per node. Their output is prefixed with the rank (and written per rank under
// --log-dir), Ctrl-C is forwarded; if one exits non-zero the others are stopped and launch fails.
// A rendezvous address that does not resolve, is not this machine's on node 0, or cannot be
// reached from the other nodes within --rdzv-timeout fails here with one line, before any rank
// starts (the ranks' own store would retry with a warning per attempt until its timeout).
// The supervision itself (process groups, output lines, the stop policy) is core/process_supervisor.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "input_guards.h"
#include "core/error.h"
#include "core/process_supervisor.h"
#include "core/spawn_error.h"
#include "dist/rendezvous.h"

namespace pacer::cli {
namespace {

struct LaunchArgs {
  LaunchLayout layout;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  std::string rdzv_endpoint;  // HOST[:PORT], as torchrun's c10d/static rendezvous
  double rdzv_timeout = 60.0;
  std::string log_dir;
  double grace = 5.0;
  std::vector<std::string> command;
};

std::atomic<int> g_interrupts{0};
void on_launch_interrupt(int) { g_interrupts.fetch_add(1); }

// SIGINT and SIGTERM counted in g_interrupts while this lives (forwarded to the ranks).
class InterruptCounter {
 public:
  InterruptCounter() {
    struct sigaction action {};
    action.sa_handler = on_launch_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptCounter() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// Each rank's output file, DIR/rank_<RANK>.log, by the rank's label; InputError naming one that
// cannot be written.
std::map<std::string, std::ofstream> open_rank_logs(const LaunchArgs& a) {
  std::map<std::string, std::ofstream> logs;
  if (a.log_dir.empty()) return logs;
  std::error_code ec;
  std::filesystem::create_directories(a.log_dir, ec);
  for (int r = 0; r < a.layout.processes; ++r) {
    const int rank = a.layout.rank_of(r);
    const std::string path = a.log_dir + "/rank_" + std::to_string(rank) + ".log";
    std::ofstream file(path, std::ios::trunc);
    if (!file) throw InputError("--log-dir: cannot write " + path);
    logs.emplace("rank " + std::to_string(rank), std::move(file));
  }
  return logs;
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

// Supervises this node's ranks: output prefixed with the rank (and copied to --log-dir),
// interrupts forwarded, the others stopped when one fails. Returns the exit status.
int supervise_ranks(const LaunchArgs& a, int port) {
  std::map<std::string, std::ofstream> logs = open_rank_logs(a);
  ProcessSupervisorOptions options;
  options.grace_sec = a.grace;
  options.interrupt_count = [] { return g_interrupts.load(); };
  options.on_event = [grace = a.grace](const SupervisorEvent& e) { report(e, grace); };
  if (!logs.empty()) {
    options.on_line = [&logs](const std::string& label, const std::string& line) {
      std::fprintf(stdout, "[%s] %s\n", label.c_str(), line.c_str());
      std::fflush(stdout);
      auto it = logs.find(label);
      if (it != logs.end()) it->second << line << '\n' << std::flush;
    };
  }
  ProcessSupervisor supervisor(options);  // on an exception: the ranks started so far are killed
  for (int r = 0; r < a.layout.processes; ++r) {
    ChildProcessOptions child;
    child.argv = a.command;
    child.environment = rank_environment(a.layout, r, a.master_addr, port);
    child.label = "rank " + std::to_string(a.layout.rank_of(r));  // output lines: "[rank r] ..."
    try {
      supervisor.spawn(child);
    } catch (const SpawnError& e) {
      throw InputError(std::string("launch: ") + e.what());
    }
  }
  const int result = supervisor.run();
  if (result != 0) {
    std::string codes;
    for (size_t r = 0; r < supervisor.children().size(); ++r)
      codes += (codes.empty() ? "" : ", ") + std::to_string(a.layout.rank_of(static_cast<int>(r))) + ":" +
               std::to_string(supervisor.children()[r].exit_code);
    std::fprintf(stderr, "pacer launch: failed (exit status by rank: %s)\n", codes.c_str());
  }
  return result;
}

int run_launch(LaunchArgs& a) {
  const LaunchLayout& l = a.layout;
  if (l.node_rank >= l.nnodes)
    throw InputError("--node-rank " + std::to_string(l.node_rank) + ": must be below --nnodes " + std::to_string(l.nnodes));
  if (!a.rdzv_endpoint.empty()) {
    const RendezvousEndpoint endpoint = parse_rendezvous_endpoint(a.rdzv_endpoint);
    a.master_addr = endpoint.host;
    if (endpoint.port) a.master_port = *endpoint.port;
  }
  // One node: any free port will do. Several: every node must name the same one (torchrun's default).
  const int port = a.master_port > 0 ? a.master_port : l.nnodes > 1 ? kTorchrunDefaultPort : free_loopback_port();
  if (l.node_rank == 0) {
    const std::string warning = check_rendezvous_address_is_local(a.master_addr, port, l.nnodes == 1);
    if (!warning.empty()) std::fprintf(stderr, "pacer launch: warning: %s\n", warning.c_str());
  }
  InterruptCounter interrupts;
  const auto announce = [&] {
    std::fprintf(stderr, "pacer launch: waiting for node 0 at %s:%d (up to %g s)\n", a.master_addr.c_str(), port,
                 a.rdzv_timeout);
  };
  if (l.node_rank > 0 && !wait_for_rendezvous(a.master_addr, port, a.rdzv_timeout, g_interrupts, announce)) {
    std::fprintf(stderr, "pacer launch: interrupted while waiting for node 0\n");
    return 130;
  }
  if (l.nnodes > 1) {
    std::fprintf(stderr, "pacer launch: node %d of %d, %d processes (ranks %d-%d of %d), rendezvous %s:%d\n", l.node_rank,
                 l.nnodes, l.processes, l.rank_of(0), l.rank_of(l.processes - 1), l.nnodes * l.processes,
                 a.master_addr.c_str(), port);
  } else {
    std::fprintf(stderr, "pacer launch: %d processes, rendezvous %s:%d\n", l.processes, a.master_addr.c_str(), port);
  }
  return supervise_ranks(a, port);
}

}  // namespace

Action add_launch_command(CLI::App& app) {
  auto a = std::make_shared<LaunchArgs>();
  app.add_option("-n,--nproc,--nproc-per-node,--nproc_per_node", a->layout.processes,
                 "Processes on this node (local ranks 0..N-1)")
      ->required()
      ->check(CLI::Range(1, 1024));
  app.add_option("--nnodes", a->layout.nnodes, "Nodes in the job, one `pacer launch` each (torchrun's meaning)")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  app.add_option("--node-rank,--node_rank", a->layout.node_rank, "This node's index, 0..nnodes-1 (node 0 serves the rendezvous)")
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

  return [a]() -> int { return run_launch(*a); };
}

}  // namespace pacer::cli
