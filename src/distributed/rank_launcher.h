#pragma once
// The use-case behind `pacer launch`, torch-free: this node's ranks as child processes with
// torchrun's variables, after the rendezvous checks (rendezvous.h), supervised together
// (core/process_supervisor.h): output prefixed with the rank and copied per rank to a folder,
// interrupts forwarded, the others stopped when one fails. The command binds the options and
// counts the signals; everything else is here, testable in process.
//
//   pacer::LaunchRequest request;
//   request.layout.processes = 2;
//   request.command = {"sh", "-c", "echo rank $RANK of $WORLD_SIZE"};
//   request.interrupts = &interrupts;   // incremented by a SIGINT handler
//   const int status = pacer::launch_ranks(request);   // "[rank 0] rank 0 of 2", "[rank 1] ..."
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "distributed/rendezvous.h"

namespace pacer {

struct LaunchRequest {
  LaunchLayout layout;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;        // 0: a free port on one node, torchrun's 29500 across nodes
  std::string rdzv_endpoint;  // HOST[:PORT], torchrun's --rdzv-endpoint: replaces master_addr/port
  double rdzv_timeout_sec = 60.0;
  std::string log_dir;  // also write each rank's output to <log_dir>/rank_<RANK>.log
  double grace_sec = 5.0;
  std::vector<std::string> command;  // what each rank runs
  // How many interrupts (SIGINT, SIGTERM) the caller has received so far, counted by its signal
  // handler; each new one is forwarded to the ranks, and one ends the wait for node 0. Null: none.
  const std::atomic<int>* interrupts = nullptr;
  std::FILE* output = stdout;    // the ranks' lines, "[rank r] line"
  std::FILE* messages = stderr;  // launch's own lines, "pacer launch: ..."
};

// Runs this node's ranks to the end. Returns 0 when all exit 0, 130 when interrupted while waiting
// for node 0, otherwise the first failing rank's status (the supervisor's). InputError for a layout,
// endpoint, log folder or command that cannot work, before any rank starts.
int launch_ranks(const LaunchRequest& request);

}  // namespace pacer
