#pragma once
// The per-tensor scalars of an update (a norm, LAMB's trust ratio, Adafactor's scale, a clipping
// factor): on a GPU they stay on the device as 0-dim tensors, since reading one back stalls the
// stream at every step; on a CPU they are read back as doubles, as the rules were written and as
// the second board measures them (its numerics are frozen until it is done: issue 47). Both paths
// agree to float rounding (DeviceScalars.* compares them on the CPU through the test hook).
//
//   if (scalars_stay_on_device(p)) p.addcmul_(direction, trust_tensor, -lr);
//   else p.add_(direction, -lr * trust_double);
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "core/export.h"

namespace pacer {

// True for a CUDA tensor (or any tensor while the test hook is on); counts the true answers.
PACER_API bool scalars_stay_on_device(const at::Tensor& t);

// Test hooks: the device path on every device, and how often it was taken in this process.
PACER_API void set_scalars_on_device_for_testing(bool on);
PACER_API int64_t scalars_on_device_count();

}  // namespace pacer
