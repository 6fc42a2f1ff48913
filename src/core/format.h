#pragma once
// printf-style formatting of one number into a std::string, for tables and reports.
//
//   std::string s = pacer::format_double("%.3f", 0.12345);   // "0.123"
//   std::string t = pacer::format_4g(0.123456);               // "0.1235": reports' default
#include <string>

namespace pacer {

std::string format_double(const char* printf_format, double value);

// Four significant digits (%.4g): how the analysis and probe pages print a measurement.
std::string format_4g(double value);

}  // namespace pacer
