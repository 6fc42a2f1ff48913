#pragma once
// The worker processes of `pacer tune` and `pacer board`: copies of the command itself, each a
// single worker with its share of the CPUs, writing to the same terminal.
//
//   const auto base = worker_base_args(argc, argv);        // without --workers/--threads/...
//   supervisor.spawn(worker_process(base, 1, /*threads=*/1));
#include <string>
#include <vector>

#include "core/process_supervisor.h"

namespace pacer::cli {

// This command's arguments without --workers, --worker-label and --threads (each worker gets its
// own).
std::vector<std::string> worker_base_args(int argc, char** argv);

// Worker k: the command as a single worker with `threads` intra-op threads. It writes to our
// terminal itself (no captured output) and, in its own process group, gets a terminal's Ctrl-C
// once, through us.
ChildProcessOptions worker_process(const std::vector<std::string>& base_args, int k, int threads);

}  // namespace pacer::cli
