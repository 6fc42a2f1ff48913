#include "runtime/global_generator_lease.h"

#include <ATen/Context.h>

#include "core/error.h"

namespace pacer {
namespace {

std::mutex& generator_mutex() {
  static std::mutex m;
  return m;
}
thread_local bool holds_lease = false;

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
