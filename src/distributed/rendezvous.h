#pragma once
// What `pacer launch` needs of a rendezvous before any rank starts, torch-free: the address given
// as torchrun's --rdzv-endpoint, a free port for a one-node job, whether node 0 can serve the
// address, waiting (bounded) for node 0 from the other nodes, and each rank's torchrun variables.
// The ranks' own store would retry with a warning per attempt until its timeout; these checks
// fail at once, with one line naming the address.
//
//   pacer::LaunchLayout layout{/*processes=*/2, /*nnodes=*/2, /*node_rank=*/1};
//   const pacer::RendezvousEndpoint at = pacer::parse_rendezvous_endpoint("node0:29400");
//   if (!pacer::wait_for_rendezvous(at.host, *at.port, /*timeout_sec=*/60, interrupts)) return 130;
//   child.environment = pacer::rank_environment(layout, /*local_rank=*/0, at.host, *at.port);
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pacer {

// torchrun's default port, which every node of a multi-node job must agree on.
constexpr int kTorchrunDefaultPort = 29500;

struct RendezvousEndpoint {
  std::string host;
  std::optional<int> port;
};

// HOST[:PORT] (IPv6 in brackets: [::1]:29400). InputError naming --rdzv-endpoint and what is wrong.
RendezvousEndpoint parse_rendezvous_endpoint(const std::string& text);

// A port the kernel just handed out for 127.0.0.1 (free now; rank 0's store binds it next).
int free_loopback_port();

// Node 0's ranks serve the rendezvous store on `host`: it must be an address of this machine.
// On one node that is an InputError; across nodes a forwarded address (a virtual IP) can work,
// so the answer is a warning to print (empty: fine). InputError when `host` does not resolve.
std::string check_rendezvous_address_is_local(const std::string& host, int port, bool one_node);

// The other nodes wait until node 0's store accepts connections: true once it does, false when
// `interrupts` becomes non-zero first; InputError naming the address after `timeout_sec`.
// `on_waiting` is called once, when the first attempt fails.
bool wait_for_rendezvous(const std::string& host, int port, double timeout_sec, const std::atomic<int>& interrupts,
                         const std::function<void()>& on_waiting = {});

// Where the ranks of one `pacer launch` sit in the job.
struct LaunchLayout {
  int processes = 1;  // on this node
  int nnodes = 1;
  int node_rank = 0;
  int rank_of(int local_rank) const { return node_rank * processes + local_rank; }
};

// torchrun's variables for a rank: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
// MASTER_ADDR, MASTER_PORT (what DistEnvironment reads back), as NAME=VALUE; and
// PACER_RENDEZVOUS_FILE when `rendezvous_file` is given (a one-node launch).
std::vector<std::string> rank_environment(const LaunchLayout& layout, int local_rank, const std::string& master_addr,
                                          int master_port, const std::string& rendezvous_file = "");

}  // namespace pacer
