#pragma once
// LibTorch draws a module's initial weights (torch::nn's reset_parameters) and dropout masks from
// one process-wide generator, and 1.13 offers no way to hand them another. A trial seeds that
// generator and draws from it only while it holds this lease, so two trials in one process (tuning
// workers as threads) cannot interleave their draws: each gets exactly the numbers it gets alone.
// Pacer's commands run one trial per process, where the lease is an uncontended mutex; threads of
// one process take turns at their seeded sections (model initialization, one training step).
//
//   { GlobalGeneratorLease draws(seed); network = factory(); }   // seeded, drawn, released
#include <cstdint>
#include <mutex>

namespace pacer {

class GlobalGeneratorLease {
 public:
  // Waits for the lease, then seeds LibTorch's global generators with SEED.
  explicit GlobalGeneratorLease(uint64_t seed);
  ~GlobalGeneratorLease();
  GlobalGeneratorLease(const GlobalGeneratorLease&) = delete;
  GlobalGeneratorLease& operator=(const GlobalGeneratorLease&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
};

// Reseeds inside a lease this thread holds (a virtual worker's own dropout stream within one step);
// Error when it holds none, where reseeding would change another thread's draws.
void reseed_global_generator(uint64_t seed);

}  // namespace pacer
