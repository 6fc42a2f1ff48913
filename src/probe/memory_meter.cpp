#include "probe/memory_meter.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "core/error.h"

namespace pacer {
namespace {

std::optional<int64_t> status_field_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    long long kib = 0;
    if (std::sscanf(line.c_str() + field.size() + 1, "%lld", &kib) == 1) return static_cast<int64_t>(kib) * 1024;
  }
  return std::nullopt;
}

}  // namespace

bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

std::optional<int64_t> peak_rss_bytes() { return status_field_kib("VmHWM"); }
std::optional<int64_t> current_rss_bytes() { return status_field_kib("VmRSS"); }

int64_t parse_memory_size(const std::string& text) {
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  double scale = 0.0;
  if (unit.empty() || unit == "B") scale = 1.0;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024.0;
  else if (unit == "G") scale = 1024.0 * 1024.0 * 1024.0;
  else if (unit == "T") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  if (used == 0 || scale == 0.0 || !(value > 0) || !std::isfinite(value * scale)) {
    throw InputError("memory size '" + text + "': expected a positive size such as 512M, 8G or 1.5G");
  }
  // Past int64's range the conversion is undefined (it came out as a wrong, small limit).
  if (value * scale >= 9.2e18) throw InputError("memory size '" + text + "' is more than the 8 EiB a size can be");
  return static_cast<int64_t>(value * scale);
}

std::string format_bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buffer;
}

}  // namespace pacer
