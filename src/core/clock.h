#pragma once
// Clocks for the trial runner. The runner never reads time directly, so tests inject a FakeClock
// and check the timing rules exactly.
//
//   pacer::FakeClock clock;
//   clock.advance(0.5);   // half a second passes
//   clock.now();          // 0.5
#include <chrono>

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

class FakeClock : public Clock {
 public:
  double now() override { return now_; }
  void advance(double seconds) { now_ += seconds; }

 private:
  double now_ = 0.0;
};

}  // namespace pacer
