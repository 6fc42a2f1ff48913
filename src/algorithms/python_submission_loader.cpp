#include "algorithms/python_submission_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "algorithms/plugin_loader.h"
#include "core/error.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

// The bridge's entry point (src/python_bridge/python_bridge.cpp): registers the submission in `file`
// as `name` and throws InputError when it cannot.
using BridgeEntry = void (*)(const std::string& file, const std::string& folder, const std::string& name,
                             const std::string& search_space);
constexpr const char* kBridgeEntry = "pacer_python_register_submission";

std::string executable_folder() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

BridgeEntry bridge_entry() {
  static std::mutex mutex;
  static BridgeEntry entry = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (entry) return entry;
  const std::string path = python_bridge_path();
  if (path.empty()) {
    throw InputError(
        "Python submissions need Pacer's Python bridge, libpacer_python.so beside the pacer executable, which is not "
        "there: build it (cmake --build BUILD --target pacer_python_bridge; `make test` builds everything) with "
        "python3-dev, pybind11-dev and python3-torch installed (./scripts/setup.sh), or set PACER_PYTHON_BRIDGE");
  }
  // RTLD_GLOBAL: the Python extension modules the submission imports (torch._C, numpy) resolve
  // Python's own symbols through the libpython the bridge brings.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) throw InputError("the Python bridge '" + path + "' cannot be loaded: " + ::dlerror());
  entry = reinterpret_cast<BridgeEntry>(::dlsym(handle, kBridgeEntry));
  if (!entry) throw InputError("the Python bridge '" + path + "' has no entry point " + kBridgeEntry);
  return entry;
}

}  // namespace

std::string python_submission_name(const std::string& file_path) {
  const fs::path file(file_path);
  std::string stem = file.stem().string();
  if (stem == "submission" && file.has_parent_path() && !file.parent_path().filename().empty()) {
    stem = file.parent_path().filename().string();
  }
  return stem + ".py";
}

std::string python_bridge_path() {
  if (const char* env = std::getenv("PACER_PYTHON_BRIDGE"); env && *env) return env;
  const std::string here = executable_folder();
  for (const fs::path& candidate : {fs::path(here) / "libpacer_python.so", fs::path(here) / "../lib/pacer/libpacer_python.so"}) {
    std::error_code ec;
    if (!here.empty() && fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return "";
}

std::string load_python_submission(const std::string& value) {
  std::error_code ec;
  fs::path file = fs::weakly_canonical(value, ec);
  if (ec || !fs::exists(file)) throw InputError("Python submission '" + value + "': no such file or folder");
  if (fs::is_directory(file)) file /= "submission.py";
  if (!fs::is_regular_file(file)) throw InputError("Python submission '" + value + "' is not a regular file");
  const fs::path folder = file.parent_path();
  const fs::path space = folder / "tuning_search_space.json";
  const bool has_space = fs::is_regular_file(space, ec);
  if (const LoadedPlugin* known = loaded_plugin_at(file.string())) return known->algorithms.front();

  std::vector<std::string> hashed{file.string()};
  if (has_space) hashed.push_back(space.string());
  const std::string name = python_submission_name(file.string());
  bridge_entry()(file.string(), folder.string(), name, has_space ? space.string() : std::string());
  return record_loaded_plugin(file.string(), LoadedPlugin{value, content_hash(hashed), {name}, true, has_space ? space.string() : ""}).algorithms.front();
}

}  // namespace pacer
