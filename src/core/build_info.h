#pragma once
// Facts about this build and host, for meta_data.json.
#include <string>

namespace pacer {

const char* git_commit();          // generated at build time (cmake/build_info.cmake)
std::string host_name();
std::string cpu_model();           // "model name" from /proc/cpuinfo, or "unknown"

}  // namespace pacer
