#include "worker_processes.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "input_guards.h"
#include "interrupt.h"
#include "core/error.h"
#include "core/spawn_error.h"
#include "runtime/torch_runtime.h"

namespace pacer::cli {
namespace {

constexpr const char* kSupervisorPid = "PACER_SUPERVISOR_PID";

}  // namespace

// Its own signal: a dying parent may send it more than once, and a second SIGTERM would kill the
// worker before it releases its trial.
void stop_with_supervisor() {
  const char* pid = std::getenv(kSupervisorPid);
  if (!pid) return;
  install_stop_signal(SIGUSR2);
  ::prctl(PR_SET_PDEATHSIG, SIGUSR2);
  if (std::to_string(::getppid()) != pid) ::raise(SIGUSR2);  // it died before the line above
}

Progress::Mode LocalWorkerArgs::progress_mode(bool quiet) const {
  return quiet ? Progress::Mode::quiet : is_worker() ? Progress::Mode::lines : Progress::auto_detect();
}

WorkerOptions LocalWorkerArgs::worker_options(const std::atomic<bool>* stop_requested, Progress* progress) const {
  WorkerOptions options;
  options.lease_sec = lease;
  options.heartbeat_sec = heartbeat > 0.0 ? heartbeat : lease / 6.0;
  if (options.heartbeat_sec >= lease) throw InputError("--heartbeat must be shorter than --lease");
  options.poll_sec = std::min(2.0, options.heartbeat_sec);
  options.stop_requested = stop_requested;
  options.progress = progress;
  options.label = worker_label;
  options.race = !no_race;
  options.race_cutoff = race_cutoff && !no_race;
  options.trial_process = "/proc/self/exe";  // untrusted algorithms' trials: in a process of their own
  options.trial_limit_sec = trial_limit;
  return options;
}

std::shared_ptr<LocalWorkerArgs> local_worker_args(std::string store, int workers, int threads) {
  auto args = std::make_shared<LocalWorkerArgs>();
  args->store = std::move(store);
  args->workers = workers;
  args->threads = threads;
  return args;
}

void add_local_worker_options(CLI::App& app, const std::shared_ptr<LocalWorkerArgs>& a, const std::string& threads_default) {
  app.add_option("--store", a->store, "Study store: a SQLite file (created if missing) or a postgresql:// URI")
      ->capture_default_str();
  app.add_option("--workers", a->workers, "Worker processes on this machine sharing the studies")
      ->check(positive_number())->capture_default_str();
  app.add_option("--threads", a->threads, "Intra-op CPU threads per worker " + threads_default)
      ->check(non_negative_number());
  app.add_option("--lease", a->lease, "Seconds a trial stays claimed without a heartbeat before another worker re-runs it")
      ->check(positive_number())->capture_default_str();
  app.add_option("--heartbeat", a->heartbeat, "Lease renewal period in seconds (default: lease / 6)")->check(positive_number());
  app.add_flag("--no-race", a->no_race,
               "Run every trial to its target or budget (default: stop a trial once it can no longer become its "
               "study's best; scores and best trials are the same either way)");
  app.add_flag("--race-cutoff", a->race_cutoff,
               "Also stop a trial past 4x the fastest time on its workload (AlgoPerf's score is the same; the pace "
               "may not be)");
  app.add_option("--trial-limit", a->trial_limit,
                 "Wall-clock seconds a Python submission's or plugin's trial may run in its own process before it "
                 "is killed and fails (default: 4 x its budget + 120 s)")->check(positive_number());
  app.add_option("--worker-label", a->worker_label, "Label of this worker's log lines (set for spawned workers)")
      ->group("");  // internal
}

std::vector<std::string> worker_base_args(int argc, char** argv) {
  std::vector<std::string> args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--workers" || a == "--worker-label" || a == "--threads") {
      ++i;
      continue;
    }
    if (a.rfind("--workers=", 0) == 0 || a.rfind("--worker-label=", 0) == 0 || a.rfind("--threads=", 0) == 0) continue;
    args.push_back(a);
  }
  return args;
}

ChildProcessOptions worker_process(const std::vector<std::string>& base_args, int k, int threads) {
  ChildProcessOptions child;
  child.executable = "/proc/self/exe";
  child.argv = base_args;
  child.argv.insert(child.argv.end(), {"--threads", std::to_string(threads), "--workers", "1", "--worker-label",
                                       "worker " + std::to_string(k)});
  child.label = "worker " + std::to_string(k);
  child.environment.push_back(std::string(kSupervisorPid) + "=" + std::to_string(::getpid()));
  child.capture_output = false;
  return child;
}

bool run_worker_copies(const std::vector<std::string>& base_args, int count, int threads,
                       const std::atomic<bool>& interrupted) {
  ProcessSupervisorOptions supervision;
  supervision.stop_others_on_failure = false;  // the others finish the work
  supervision.poll_interval_sec = 0.05;
  supervision.interrupt_count = [&interrupted] { return interrupted ? 1 : 0; };  // forwarded once
  ProcessSupervisor workers(supervision);  // on an exception: the workers started so far are killed
  for (int k = 1; k <= count; ++k) {
    try {
      workers.spawn(worker_process(base_args, k, threads));
    } catch (const SpawnError& e) {
      throw Error(std::string("cannot start a worker process: ") + std::strerror(e.error_number()));
    }
  }
  return workers.run() != 0;
}

LocalWorkersRun run_local_workers(const LocalWorkerArgs& workers, const std::vector<std::string>& base_args, bool quiet,
                                  std::optional<DeadlineWatch::Steady::time_point> deadline, WorkerOptions options,
                                  const std::function<WorkerReport(const WorkerOptions&)>& work) {
  const int threads = set_num_threads(workers.threads, workers.workers);  // each worker: its share of the CPUs
  Progress progress(workers.progress_mode(quiet));
  options.progress = &progress;
  options.trial_process_threads = threads;
  const std::atomic<bool>& interrupted = install_interrupt_handler();
  if (workers.is_worker()) stop_with_supervisor();
  DeadlineWatch watch(interrupted, deadline);
  options.stop_requested = &watch.stop;
  LocalWorkersRun run;
  // A copy that died leaves its trial to the lease; what is left is finished here.
  if (workers.workers <= 1 || workers.is_worker() ||
      (run_worker_copies(base_args, workers.workers, threads, interrupted) && !watch.stop)) {
    run.report = work(options);
  }
  run.interrupted = interrupted;
  run.deadline_hit = watch.deadline_hit;
  return run;
}

}  // namespace pacer::cli
