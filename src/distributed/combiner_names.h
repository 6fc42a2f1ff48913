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

}  // namespace pacer
