#pragma once
// printf-style formatting of one number into a std::string, for tables and reports.
//
//   std::string s = pacer::format_double("%.3f", 0.12345);   // "0.123"
//   std::string t = pacer::format_4g(0.123456);               // "0.1235": reports' default
//   std::string c = pacer::markdown_cell("a|b");               // "a\\|b"
#include <string>

namespace pacer {

std::string format_double(const char* printf_format, double value);

// Four significant digits (%.4g): how the analysis and probe pages print a measurement.
std::string format_4g(double value);

// Text for one cell of a Markdown table: `|` escaped (it would forge cells), `<`, `>` and `&` as
// entities (a renderer would run raw HTML), line breaks as spaces.
std::string markdown_cell(const std::string& text);

}  // namespace pacer
