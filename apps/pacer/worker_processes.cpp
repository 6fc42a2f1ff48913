#include "worker_processes.h"

#include <cstring>

#include "core/error.h"
#include "core/spawn_error.h"

namespace pacer::cli {

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

}  // namespace pacer::cli
