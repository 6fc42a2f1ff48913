#include "core/clock.h"

#include <ctime>

#include "core/error.h"

namespace pacer {

double ProcessCpuClock::now() {
  timespec t{};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) throw Error("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::string to_string(ClockKind kind) { return kind == ClockKind::cpu ? "cpu" : "wall"; }

ClockKind parse_clock_kind(const std::string& name) {
  if (name == "wall") return ClockKind::wall;
  if (name == "cpu") return ClockKind::cpu;
  throw InputError("unknown clock '" + name + "' (wall: elapsed time, as AlgoPerf; cpu: this process's CPU time)");
}

std::unique_ptr<Clock> make_clock(ClockKind kind) {
  if (kind == ClockKind::cpu) return std::make_unique<ProcessCpuClock>();
  return std::make_unique<SteadyClock>();
}

}  // namespace pacer
