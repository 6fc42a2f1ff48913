#pragma once
// Cooperative fibers on the calling thread: the virtual workers' ranks, when they have no cores to
// run on at once. K rank threads on one or two cores paid a context switch, and the group lock's
// contention, at every message of Adasum's rounds: at K=256 about 33,000 switches a step, more than
// half of the process's CPU time in the kernel's scheduler and futexes (docs/data_parallel.md,
// "Virtual workers as fibers"). A fiber switch is a few hundred nanoseconds, without the kernel's
// scheduler, and the order in which the ranks run is fixed, so runs are as reproducible as before.
//
//   pacer::FiberScheduler fibers(8);            // 8 stacks, kept for every run
//   fibers.run([&](int rank) {                  // each rank's body, on this thread
//     while (!ready(rank)) pacer::FiberScheduler::yield();   // wait: let the others run
//     work(rank);
//   });
//
// A body must not throw (catch inside it) and must release any lock before it yields: all fibers
// share this thread, so a lock held across a yield would deadlock the next fiber that takes it.
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace pacer {

class FiberScheduler {
 public:
  explicit FiberScheduler(int size);
  ~FiberScheduler();
  FiberScheduler(const FiberScheduler&) = delete;
  FiberScheduler& operator=(const FiberScheduler&) = delete;
  int size() const { return size_; }

  // Runs body(0) ... body(size - 1), each on its fiber, round robin from rank 0, until all return.
  void run(const std::function<void(int)>& body);

  // Inside a fiber of run(): back to the scheduler, which resumes the next fiber. Error elsewhere.
  static void yield();
  // Whether the calling code runs on a fiber of some scheduler's run().
  static bool on_fiber();

 private:
  struct Fiber;  // its stack and context (fiber_scheduler.cpp)
  void switch_to(int fiber);
  static void entry();

  const int size_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  struct Context;
  std::unique_ptr<Context> scheduler_;  // the calling thread's context while fibers run
  const std::function<void(int)>* body_ = nullptr;
  int current_ = -1;
};

}  // namespace pacer
