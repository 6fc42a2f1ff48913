#include "worker_processes.h"

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

}  // namespace pacer::cli
