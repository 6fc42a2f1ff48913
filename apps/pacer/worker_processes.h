#pragma once
// The worker processes of `pacer tune` and `pacer board`: copies of the command itself, each a
// single worker with its share of the CPUs, writing to the same terminal.
//
//   const auto base = worker_base_args(argc, argv);        // without --workers/--threads/...
//   const bool failed = run_worker_copies(base, /*count=*/2, /*threads=*/1, interrupted);
#include <atomic>
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

// Starts workers 1..count and waits for all of them; true when one failed (the others go on and
// finish the work; the caller takes over what a dead one left). `interrupted` (the first Ctrl-C)
// is forwarded to them once. Error when a worker cannot be started (those started are killed).
bool run_worker_copies(const std::vector<std::string>& base_args, int count, int threads,
                       const std::atomic<bool>& interrupted);

}  // namespace pacer::cli
