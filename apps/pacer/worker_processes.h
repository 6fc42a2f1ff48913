#pragma once
// The worker processes of `pacer tune` and `pacer board`: copies of the command itself, each a
// single worker with its share of the CPUs, writing to the same terminal; and the options both
// commands bind for them.
//
//   auto workers = std::make_shared<LocalWorkerArgs>();
//   add_local_worker_options(app, workers, "(default: this machine's CPUs / --workers)");
//   ... after parsing:
//   WorkerOptions options = workers->worker_options(&stop, &progress);
//   const auto base = worker_base_args(argc, argv);        // without --workers/--threads/...
//   const bool failed = run_worker_copies(base, /*count=*/2, /*threads=*/1, interrupted);
//   // or all of it: Ctrl-C, a deadline, the copies, and this process's own share
//   LocalWorkersRun run = run_local_workers(*workers, base, threads, deadline, options,
//                                           [&](const WorkerOptions& o) { return run_tuning_worker(store, studies, o); });
#include <CLI/CLI.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/deadline_watch.h"
#include "core/process_supervisor.h"
#include "core/progress.h"
#include "run/tuning_worker.h"

namespace pacer::cli {

// --store, --workers, --threads, --lease, --heartbeat, --no-race, --race-cutoff, --trial-limit and the hidden --worker-label
// that a spawned worker gets. Set the defaults before binding (they show in --help).
struct LocalWorkerArgs {
  std::string store, worker_label;
  int workers = 1, threads = 0;
  double lease = 60.0, heartbeat = 0.0;  // heartbeat 0: lease / 6
  double trial_limit = 0.0;              // 0: a contained trial's default limit
  bool no_race = false, race_cutoff = false;

  bool is_worker() const { return !worker_label.empty(); }
  // Spawned workers share one terminal: plain lines, no redrawn bars.
  Progress::Mode progress_mode(bool quiet) const;
  // The lease, heartbeat, polling, racing, label, stop flag and progress of a tuning worker;
  // InputError when the heartbeat is not shorter than the lease.
  WorkerOptions worker_options(const std::atomic<bool>* stop_requested, Progress* progress) const;
};

// In a process this command spawned (a worker, a contained trial; PACER_SUPERVISOR_PID set): stop
// as on Ctrl-C, releasing the trial, when that command dies, kill -9 included. Left running, a
// worker would go on through the whole board unseen, beside the workers of the next run. Call
// after install_interrupt_handler().
void stop_with_supervisor();

// Worker arguments with this command's defaults (they show in --help).
std::shared_ptr<LocalWorkerArgs> local_worker_args(std::string store, int workers = 1, int threads = 0);

void add_local_worker_options(CLI::App& app, const std::shared_ptr<LocalWorkerArgs>& args,
                              const std::string& threads_default);

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

// What this process's part in a run of workers came to.
struct LocalWorkersRun {
  WorkerReport report;        // this process's own worker (empty when its copies finished everything)
  bool interrupted = false;   // the first Ctrl-C (SIGINT, SIGTERM, SIGHUP) came
  bool deadline_hit = false;  // the deadline passed
};

// This process's part in a run of workers sharing a store: alone (--workers 1), a spawned copy
// (--worker-label), or the parent of --workers copies, which then runs `work` itself to finish what
// a dead one left. Sets each worker's share of the CPUs; `options` gets the progress output (-q:
// none) and the stop flag: set by the first Ctrl-C (forwarded to the copies once) or once
// `deadline` passes.
LocalWorkersRun run_local_workers(const LocalWorkerArgs& workers, const std::vector<std::string>& base_args, bool quiet,
                                  std::optional<DeadlineWatch::Steady::time_point> deadline, WorkerOptions options,
                                  const std::function<WorkerReport(const WorkerOptions&)>& work);

}  // namespace pacer::cli
