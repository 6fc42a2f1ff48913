#include "core/deadline_watch.h"

namespace pacer {

DeadlineWatch::DeadlineWatch(const std::atomic<bool>& interrupted, std::optional<Steady::time_point> deadline)
    : thread_([this, &interrupted, deadline] {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!done_) {
          if (interrupted) stop = true;
          if (deadline && Steady::now() >= *deadline) deadline_hit = stop = true;
          wake_.wait_for(lock, std::chrono::milliseconds(100));
        }
      }) {}

std::optional<DeadlineWatch::Steady::time_point> DeadlineWatch::after_hours(Steady::time_point start, double hours) {
  if (hours <= 0) return std::nullopt;
  return start + std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(hours * 3600.0));
}

DeadlineWatch::~DeadlineWatch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace pacer
