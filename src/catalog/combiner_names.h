#pragma once
// The gradient combiners by name (make_gradient_combiner makes them), checked without torch so that
// a command refuses an unknown one before it writes a study.
//
//   pacer::check_combiner_name("adasum");   // fine; "median": InputError listing mean, sum, adasum
#include <string>

#include "core/error.h"

namespace pacer {

inline void check_combiner_name(const std::string& name) {
  if (name != "mean" && name != "sum" && name != "adasum")
    throw InputError("unknown gradient combiner '" + name + "' (mean, sum, adasum)");
}

// Adasum's tree sends and receives tensors between the processes; Gloo's transport reads host
// memory, so over Gloo on a GPU it would be handed the device's pointers: refused (NCCL takes GPU
// tensors, and --dist-backend auto picks it on a GPU).
inline void check_backend_for_device(const std::string& backend, bool cuda, const std::string& combine) {
  if (cuda && backend == "gloo" && combine == "adasum") {
    throw InputError("--combine adasum over --dist-backend gloo on a GPU: Gloo's send and receive take host memory; "
                     "use --dist-backend nccl (or auto, which picks it on a GPU)");
  }
}

}  // namespace pacer
