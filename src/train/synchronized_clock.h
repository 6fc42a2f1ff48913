#pragma once
// The trial's clock as the loop reads it: the device's queued work is finished before every read,
// so a time read on a GPU includes the kernels launched before it (the step's end, the end of the
// last step, the eval's and the checkpoint's edges alike). On the CPU the synchronization is a
// no-op. runtime/torch_runtime.h counts synchronizations, so a test can check that no read skips it.
//
//   pacer::SynchronizedClock clock(inner, [&] { pacer::synchronize(device); });
//   double t = clock.now();  // after the device's queued work
#include <functional>
#include <utility>

#include "core/clock.h"

namespace pacer {

class SynchronizedClock : public Clock {
 public:
  SynchronizedClock(Clock& inner, std::function<void()> synchronize)
      : inner_(inner), synchronize_(std::move(synchronize)) {}
  double now() override {
    synchronize_();
    return inner_.now();
  }

 private:
  Clock& inner_;
  std::function<void()> synchronize_;
};

}  // namespace pacer
