#include "core/format.h"

#include <cstdio>

namespace pacer {

std::string format_double(const char* printf_format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), printf_format, value);
  return buffer;
}

std::string format_4g(double value) { return format_double("%.4g", value); }

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\n': case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace pacer
