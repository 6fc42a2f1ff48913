#include "core/format.h"

#include <cstdio>

namespace pacer {

std::string format_double(const char* printf_format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), printf_format, value);
  return buffer;
}

std::string format_4g(double value) { return format_double("%.4g", value); }

}  // namespace pacer
