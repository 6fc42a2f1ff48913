#include "core/device_choice.h"

#include "core/error.h"

namespace pacer {

bool is_cuda_device_name(const std::string& device) { return device.rfind("cuda", 0) == 0; }

std::string device_for_rank(const std::string& requested, int local_rank, int cuda_devices) {
  const bool any = requested == "auto" || requested.empty();
  if (any && cuda_devices <= 0) return "cpu";
  if (any || requested == "cuda") {
    const int devices = cuda_devices > 0 ? cuda_devices : 1;
    const int rank = local_rank > 0 ? local_rank : 0;
    return "cuda:" + std::to_string(rank % devices);
  }
  return requested;
}

void check_clock_for_device(ClockKind clock, const std::string& device) {
  if (clock == ClockKind::cpu && is_cuda_device_name(device)) {
    throw InputError("--clock cpu on " + device + ": this process's CPU time counts the host launching the GPU's "
                     "work, not the training; time GPU runs by the wall clock (--clock wall, the default)");
  }
}

}  // namespace pacer
