#pragma once
// A flag that a long command's workers poll to stop cleanly: set once the user interrupts (the
// interrupt handler's flag) or once a deadline passes. A thread looks every 100 ms, so a worker
// reads one atomic instead of the clock, and `deadline_hit` tells the two causes apart.
//
//   pacer::DeadlineWatch watch(interrupted, std::chrono::steady_clock::now() + std::chrono::hours(2));
//   options.stop_requested = &watch.stop;
//   ... run ...
//   if (watch.deadline_hit) std::puts("stopped at the deadline; run again to continue");
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace pacer {

class DeadlineWatch {
 public:
  using Steady = std::chrono::steady_clock;
  DeadlineWatch(const std::atomic<bool>& interrupted, std::optional<Steady::time_point> deadline);
  ~DeadlineWatch();
  DeadlineWatch(const DeadlineWatch&) = delete;
  DeadlineWatch& operator=(const DeadlineWatch&) = delete;

  // `hours` after `start`; none when hours <= 0 (no deadline: --max-hours 0).
  static std::optional<Steady::time_point> after_hours(Steady::time_point start, double hours);

  std::atomic<bool> stop{false}, deadline_hit{false};

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace pacer
