#pragma once
// printf-style formatting of one number into a std::string, for tables and reports.
//
//   std::string s = pacer::format_double("%.3f", 0.12345);   // "0.123"
#include <string>

namespace pacer {

std::string format_double(const char* printf_format, double value);

}  // namespace pacer
