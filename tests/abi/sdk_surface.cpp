// The SDK's boundary for the ABI check (tools/checks/check_sdk_abi.py, CTest SdkAbi): an exported function
// whose parameters reach every type a plugin shares with pacer (PACER_SDK_BOUNDARY_TYPES), compiled
// with full debug information of every class, so that libabigail's abidw describes their fields,
// offsets and types, and their virtual functions' vtable slots.
#include "algorithms/sdk_layout.h"

namespace pacer {

template <typename... T>
__attribute__((visibility("default"))) void sdk_surface(T*...) {}

// Taking its address instantiates (and so exports) the one specialization over the whole list.
extern "C" __attribute__((visibility("default"))) void* pacer_sdk_surface() {
  return reinterpret_cast<void*>(&sdk_surface<PACER_SDK_BOUNDARY_TYPES>);
}

}  // namespace pacer
