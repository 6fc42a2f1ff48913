#include "catalog/algorithm_reference.h"

#include <filesystem>
#include <system_error>

namespace pacer {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool names_a_library(const std::string& value) {
  const size_t colon = value.find(".so:");
  const std::string path = colon == std::string::npos ? value : value.substr(0, colon + 3);
  return value.find('/') != std::string::npos || ends_with(path, ".so");
}

bool names_a_submission(const std::string& value) {
  const bool has_slash = value.find('/') != std::string::npos;
  if (ends_with(value, ".py") && (has_slash || fs::exists(value))) return true;
  std::error_code ec;
  return has_slash && fs::is_directory(value, ec) && fs::exists(fs::path(value) / "submission.py", ec);
}

}  // namespace

AlgorithmReference algorithm_reference(const std::string& value) {
  AlgorithmReference ref;
  ref.value = value;
  std::error_code ec;
  if (names_a_submission(value)) {
    ref.kind = AlgorithmReference::Kind::python;
    ref.file.python = true;
    ref.file.path = value;
    fs::path file = fs::weakly_canonical(value, ec);
    if (!ec && fs::is_directory(file, ec)) file /= "submission.py";
    ref.file.canonical = file.string();
    return ref;
  }
  if (!names_a_library(value)) return ref;
  ref.kind = AlgorithmReference::Kind::library;
  ref.file.path = value;
  // "PATH:NAME": a ':' after the path's last '/' (or anywhere in a bare "libx.so:NAME").
  const size_t colon = value.rfind(':'), slash = value.rfind('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    ref.file.path = value.substr(0, colon);
    ref.file.name = value.substr(colon + 1);
  }
  ref.file.canonical = fs::weakly_canonical(ref.file.path, ec).string();
  return ref;
}

}  // namespace pacer
