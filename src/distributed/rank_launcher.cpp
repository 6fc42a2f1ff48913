#include "distributed/rank_launcher.h"

#include <stdlib.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/error.h"
#include "core/process_supervisor.h"
#include "core/spawn_error.h"

namespace pacer {
namespace {

// Each rank's output file, DIR/rank_<RANK>.log, by the rank's label; InputError naming one that
// cannot be written.
std::map<std::string, std::ofstream> open_rank_logs(const LaunchRequest& r) {
  std::map<std::string, std::ofstream> logs;
  if (r.log_dir.empty()) return logs;
  std::error_code ec;
  std::filesystem::create_directories(r.log_dir, ec);
  for (int local = 0; local < r.layout.processes; ++local) {
    const int rank = r.layout.rank_of(local);
    const std::string path = r.log_dir + "/rank_" + std::to_string(rank) + ".log";
    std::ofstream file(path, std::ios::trunc);
    if (!file) throw InputError("--log-dir: cannot write " + path);
    logs.emplace("rank " + std::to_string(rank), std::move(file));
  }
  return logs;
}

void report_supervisor_event(const SupervisorEvent& e, double grace, std::FILE* messages) {
  switch (e.kind) {
    case SupervisorEvent::Kind::interrupt_forwarded:
      std::fprintf(messages, "pacer launch: interrupt, forwarding to %zu rank(s)\n", e.running);
      break;
    case SupervisorEvent::Kind::stopping_others:
      std::fprintf(messages, "pacer launch: rank %zu exited with status %d; stopping the other ranks\n", e.child,
                   e.exit_code);
      break;
    case SupervisorEvent::Kind::interrupt_grace_expired:
      std::fprintf(messages, "pacer launch: %zu rank(s) still running %.0f s after the interrupt; stopping them\n",
                   e.running, grace);
      break;
    case SupervisorEvent::Kind::killing:
      break;
  }
}

// A one-node launch's rendezvous file, in a private folder removed when the ranks are done. Its
// ranks meet through it (c10d's FileStore), so nothing listens beyond the loopback device: a TCP
// store's server binds every interface, whatever MASTER_ADDR says.
class RendezvousFolder {
 public:
  RendezvousFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/pacer-rendezvous-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      throw Error("launch: cannot make a rendezvous folder " + pattern + ": " + std::strerror(errno));
    }
    folder_ = pattern;
  }
  ~RendezvousFolder() {
    std::error_code ec;
    std::filesystem::remove_all(folder_, ec);
  }
  RendezvousFolder(const RendezvousFolder&) = delete;
  RendezvousFolder& operator=(const RendezvousFolder&) = delete;
  std::string file() const { return folder_ + "/store"; }

 private:
  std::string folder_;
};

// This node's ranks under one supervisor; returns the exit status.
int supervise_ranks(const LaunchRequest& r, const std::string& master_addr, int port,
                    const std::string& rendezvous_file) {
  std::map<std::string, std::ofstream> logs = open_rank_logs(r);
  ProcessSupervisorOptions options;
  options.grace_sec = r.grace_sec;
  if (r.interrupts) options.interrupt_count = [counter = r.interrupts] { return counter->load(); };
  options.output = r.output;
  options.on_event = [grace = r.grace_sec, messages = r.messages](const SupervisorEvent& e) {
    report_supervisor_event(e, grace, messages);
  };
  if (!logs.empty()) {
    options.on_line = [&logs, out = r.output](const std::string& label, const std::string& line) {
      std::fprintf(out, "[%s] %s\n", label.c_str(), line.c_str());
      std::fflush(out);
      auto it = logs.find(label);
      if (it != logs.end()) it->second << line << '\n' << std::flush;
    };
  }
  ProcessSupervisor supervisor(options);  // on an exception: the ranks started so far are killed
  for (int local = 0; local < r.layout.processes; ++local) {
    ChildProcessOptions child;
    child.argv = r.command;
    child.environment = rank_environment(r.layout, local, master_addr, port, rendezvous_file);
    child.label = "rank " + std::to_string(r.layout.rank_of(local));  // output lines: "[rank r] ..."
    try {
      supervisor.spawn(child);
    } catch (const SpawnError& e) {
      throw InputError(std::string("launch: ") + e.what());
    }
  }
  const int result = supervisor.run();
  if (result != 0) {
    std::string codes;
    for (size_t i = 0; i < supervisor.children().size(); ++i)
      codes += (codes.empty() ? "" : ", ") + std::to_string(r.layout.rank_of(static_cast<int>(i))) + ":" +
               std::to_string(supervisor.children()[i].exit_code);
    std::fprintf(r.messages, "pacer launch: failed (exit status by rank: %s)\n", codes.c_str());
  }
  return result;
}

}  // namespace

int launch_ranks(const LaunchRequest& r) {
  const LaunchLayout& l = r.layout;
  if (l.processes < 1) throw InputError("--nproc-per-node " + std::to_string(l.processes) + ": must be at least 1");
  if (l.node_rank >= l.nnodes)
    throw InputError("--node-rank " + std::to_string(l.node_rank) + ": must be below --nnodes " + std::to_string(l.nnodes));
  if (r.command.empty()) throw InputError("launch: no command to run (give it after --)");
  std::string addr = r.master_addr;
  int port = r.master_port;
  if (!r.rdzv_endpoint.empty()) {
    const RendezvousEndpoint endpoint = parse_rendezvous_endpoint(r.rdzv_endpoint);
    addr = endpoint.host;
    if (endpoint.port) port = *endpoint.port;
  }
  // One node: any free port will do. Several: every node must name the same one (torchrun's default).
  if (port <= 0) port = l.nnodes > 1 ? kTorchrunDefaultPort : free_loopback_port();
  if (l.node_rank == 0) {
    const std::string warning = check_rendezvous_address_is_local(addr, port, l.nnodes == 1);
    if (!warning.empty()) std::fprintf(r.messages, "pacer launch: warning: %s\n", warning.c_str());
  }
  static const std::atomic<int> kNever{0};
  const auto announce = [&] {
    std::fprintf(r.messages, "pacer launch: waiting for node 0 at %s:%d (up to %g s)\n", addr.c_str(), port,
                 r.rdzv_timeout_sec);
  };
  if (l.node_rank > 0 &&
      !wait_for_rendezvous(addr, port, r.rdzv_timeout_sec, r.interrupts ? *r.interrupts : kNever, announce)) {
    std::fprintf(r.messages, "pacer launch: interrupted while waiting for node 0\n");
    return 130;
  }
  if (l.nnodes > 1) {
    std::fprintf(r.messages, "pacer launch: node %d of %d, %d processes (ranks %d-%d of %d), rendezvous %s:%d\n",
                 l.node_rank, l.nnodes, l.processes, l.rank_of(0), l.rank_of(l.processes - 1), l.nnodes * l.processes,
                 addr.c_str(), port);
  } else {
    std::fprintf(r.messages, "pacer launch: %d processes, rendezvous %s:%d\n", l.processes, addr.c_str(), port);
  }
  if (l.nnodes == 1) {
    const RendezvousFolder folder;
    return supervise_ranks(r, addr, port, folder.file());
  }
  return supervise_ranks(r, addr, port, "");
}

}  // namespace pacer
