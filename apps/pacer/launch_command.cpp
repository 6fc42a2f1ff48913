// pacer launch --nproc-per-node N [--nnodes M --node-rank R] -- CMD...: N local processes with
// torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
// MASTER_PORT) and torchrun's flags with the same meaning, so a multi-node job is one `pacer
// launch` per node. Their output is prefixed with the rank (and written per rank under
// --log-dir), Ctrl-C is forwarded; if one exits non-zero the others are stopped and launch fails.
// A rendezvous address that does not resolve, is not this machine's on node 0, or cannot be
// reached from the other nodes within --rdzv-timeout fails here with one line, before any rank
// starts (the ranks' own store would retry with a warning per attempt until its timeout).
// The use-case is dist/rank_launcher; this file binds the options and counts the signals.
#include <signal.h>

#include <atomic>
#include <memory>

#include "commands.h"
#include "input_guards.h"
#include "distributed/rank_launcher.h"

namespace pacer::cli {
namespace {

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

}  // namespace

Action add_launch_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<LaunchRequest>();
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
  app.add_option("--rdzv-timeout,--rdzv_timeout", a->rdzv_timeout_sec,
                 "Seconds the other nodes wait for node 0's rendezvous before failing")
      ->check(positive_number())
      ->capture_default_str();
  app.add_option("--log-dir,--log_dir", a->log_dir, "Also write each rank's output to DIR/rank_<RANK>.log");
  app.add_option("--grace", a->grace_sec, "Seconds between SIGTERM and SIGKILL when stopping the others")
      ->check(positive_number())->capture_default_str();
  app.add_option("command", a->command, "The command each rank runs (after --)")->required()->expected(-1);
  app.footer(
      "Example: pacer launch -n 4 -- build/pacer run -w fmnist_mlp -a momentum --combine adasum --out runs/dp4\n"
      "Two nodes: pacer launch --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr node0 --master-port 29500 -- ...\n"
      "           pacer launch --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr node0 --master-port 29500 -- ...");

  return [a]() -> int {
    InterruptCounter counter;  // while the ranks run: Ctrl-C is theirs to handle, forwarded
    a->interrupts = &g_interrupts;
    return launch_ranks(*a);
  };
}

}  // namespace pacer::cli
