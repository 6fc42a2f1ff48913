#pragma once
// Clocks for the trial runner. The runner never reads time directly, so tests inject a FakeClock
// and check the timing rules exactly, and a benchmark on a shared machine can charge CPU time.
//
//   pacer::FakeClock clock;
//   clock.advance(0.5);   // half a second passes
//   clock.now();          // 0.5
//
//   auto submission = pacer::make_clock(pacer::parse_clock_kind("cpu"));  // this process's CPU time
#include <chrono>
#include <memory>
#include <string>

namespace pacer {

class Clock {
 public:
  virtual ~Clock() = default;
  // Seconds since an arbitrary, fixed origin; monotonic.
  virtual double now() = 0;
};

class SteadyClock : public Clock {
 public:
  double now() override {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
  }
};

// The CPU time this process has used, every thread together (CLOCK_PROCESS_CPUTIME_ID). A second
// job on the machine takes cores away from the process but adds little CPU time to it, so a trial
// timed by it is measured almost the same on a loaded machine as on a quiet one. With N busy
// threads it advances about N times as fast as the wall clock: compare runs with equal --threads.
class ProcessCpuClock : public Clock {
 public:
  double now() override;
};

class FakeClock : public Clock {
 public:
  double now() override { return now_; }
  void advance(double seconds) { now_ += seconds; }

 private:
  double now_ = 0.0;
};

// What a trial's submission time is measured by: "wall" (the steady clock, AlgoPerf's) or "cpu".
enum class ClockKind { wall, cpu };
std::string to_string(ClockKind kind);
ClockKind parse_clock_kind(const std::string& name);  // InputError naming the value
std::unique_ptr<Clock> make_clock(ClockKind kind);

}  // namespace pacer
