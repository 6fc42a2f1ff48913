#include "core/machine_load.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace pacer {

int other_running_tasks(int samples, int interval_ms, const std::string& loadavg) {
  int fewest = -1;
  for (int i = 0; i < std::max(1, samples); ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
    std::ifstream in(loadavg);
    double one = 0, five = 0, fifteen = 0;
    std::string running_total;  // "3/412": runnable tasks (this one included) / all tasks
    if (!(in >> one >> five >> fifteen >> running_total)) return 0;
    const size_t slash = running_total.find('/');
    int running = 0;
    try {
      running = std::stoi(running_total.substr(0, slash));
    } catch (const std::exception&) {
      return 0;
    }
    fewest = fewest < 0 ? running : std::min(fewest, running);
  }
  return std::max(0, fewest - 1);
}

int threads_beside(int busy, int cpus, int share) {
  share = std::max(1, share);
  return std::clamp(cpus - std::max(0, busy), 1, share);
}

}  // namespace pacer
