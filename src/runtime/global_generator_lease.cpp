#include "runtime/global_generator_lease.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include "core/error.h"

namespace pacer {
namespace {

std::mutex& generator_mutex() {
  static std::mutex m;
  return m;
}
thread_local bool holds_lease = false;

// LibTorch makes its default generator lazily, the first time any random op asks for it, even
// with a generator of its own (at::randn(..., gen) evaluates the default). That first use may be
// in any thread; its static-initialization guard is in uninstrumented LibTorch, so ThreadSanitizer
// saw the next thread's manual_seed race with it. Made here, at start-up, before any thread.
const bool kDefaultGeneratorMade = (at::detail::getDefaultCPUGenerator(), true);

}  // namespace

GlobalGeneratorLease::GlobalGeneratorLease(uint64_t seed) : lock_(generator_mutex()) {
  holds_lease = true;
  at::manual_seed(seed);
}

GlobalGeneratorLease::~GlobalGeneratorLease() { holds_lease = false; }

void reseed_global_generator(uint64_t seed) {
  if (!holds_lease) throw Error("reseeding LibTorch's global generator without holding its lease");
  at::manual_seed(seed);
}

}  // namespace pacer
