#include "core/read_once_inputs.h"

#include <sys/stat.h>

#include <mutex>

namespace pacer {
namespace {

std::mutex& inputs_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, std::string>& inputs() {
  static std::map<std::string, std::string> kept;
  return kept;
}

}  // namespace

bool is_read_once(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
}

void keep_read_once_input(const std::string& path, const std::string& content) {
  std::lock_guard<std::mutex> lock(inputs_mutex());
  inputs()[path] = content;
}

std::map<std::string, std::string> read_once_inputs() {
  std::lock_guard<std::mutex> lock(inputs_mutex());
  return inputs();
}

}  // namespace pacer
