#include "algorithms/plugin_loader.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "algorithms/plugin_manifest.h"
#include "algorithms/python_submission_loader.h"
#include "algorithms/registry.h"
#include "algorithms/sdk_layout.h"
#include "algorithms/training_algorithm.h"
#include "catalog/algorithm_reference.h"
#include "core/error.h"
#include "core/hyperparameters.h"

namespace pacer {
namespace {

std::mutex g_load_mutex;  // one load at a time: a library is opened once however many ask

std::string describe(const PluginManifest& m) {
  return "SDK ABI " + std::to_string(m.sdk_abi_version) + ", LibTorch " + (m.torch_version ? m.torch_version : "?") +
         ", C++11 ABI " + std::to_string(m.cxx11_abi) + ", " + (m.compiler ? m.compiler : "unknown compiler");
}

void check_compatible(const std::string& path, const PluginManifest& plugin) {
  const PluginManifest host = host_manifest();
  const bool same = plugin.sdk_abi_version == host.sdk_abi_version && plugin.torch_version &&
                    std::strcmp(plugin.torch_version, host.torch_version) == 0 && plugin.cxx11_abi == host.cxx11_abi;
  if (!same) {
    // Only the first field is certain to mean the same thing in another ABI version.
    const std::string theirs = plugin.sdk_abi_version == host.sdk_abi_version
                                   ? describe(plugin)
                                   : "SDK ABI " + std::to_string(plugin.sdk_abi_version);
    throw InputError("algorithm plugin '" + path + "' was built against " + theirs + "; this pacer has " +
                     describe(host) + ": rebuild the plugin against this SDK");
  }
  if (plugin.layout_fingerprint != host.layout_fingerprint) {
    char fingerprints[64];
    std::snprintf(fingerprints, sizeof fingerprints, "%016llx, this pacer's %016llx", plugin.layout_fingerprint,
                  host.layout_fingerprint);
    throw InputError("algorithm plugin '" + path + "' lays out the SDK's types differently from this pacer (layout "
                     "fingerprint " + fingerprints + "): it was built against other SDK headers or with other "
                     "flags (e.g. -fpack-struct); rebuild it against this SDK with the same flags");
  }
}

}  // namespace

PluginManifest host_manifest() {
  return {kSdkAbiVersion, _GLIBCXX_USE_CXX11_ABI, TORCH_VERSION, __VERSION__, nullptr, 0, kSdkLayoutFingerprint};
}

const LoadedPlugin& load_algorithm_plugin(const std::string& path) {
  std::error_code ec;
  const std::string canonical = std::filesystem::weakly_canonical(path, ec).string();
  namespace fs = std::filesystem;
  if (ec || !fs::exists(canonical)) throw InputError("algorithm plugin '" + path + "': no such file");
  if (fs::is_directory(canonical)) {
    // A folder is a Python submission when it holds submission.py (python_submission_loader): this
    // one does not.
    throw InputError("algorithm '" + path + "' is a folder without submission.py: give a Python submission's " +
                     "folder (with submission.py), its .py file, or a plugin's .so file");
  }
  if (!fs::is_regular_file(canonical)) {
    throw InputError("algorithm plugin '" + path + "' is not a regular file (a device or a pipe); give the plugin's .so file");
  }
  std::lock_guard<std::mutex> lock(g_load_mutex);
  if (const LoadedPlugin* known = loaded_plugin_at(canonical)) return *known;

  // RTLD_LOCAL: two plugins may define classes of the same name. Never closed: the algorithms'
  // code must outlive every instance.
  void* handle = ::dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw InputError("algorithm plugin '" + path + "': cannot be loaded: " + ::dlerror());
  using Entry = const PluginManifest* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, PACER_PLUGIN_ENTRY_POINT));
  if (!entry) {
    throw InputError("algorithm plugin '" + path + "' has no entry point " PACER_PLUGIN_ENTRY_POINT
                     " (define it with PACER_PLUGIN(...), see docs/writing_an_algorithm.md)");
  }
  const PluginManifest* manifest = entry();
  if (!manifest) throw InputError("algorithm plugin '" + path + "': its manifest is null");
  check_compatible(path, *manifest);
  if (manifest->algorithm_count < 1 || !manifest->algorithms) {
    throw InputError("algorithm plugin '" + path + "' defines no algorithm");
  }
  LoadedPlugin plugin{path, content_hash({canonical}), {}, false, ""};
  for (long long i = 0; i < manifest->algorithm_count; ++i) {
    const PluginAlgorithm entry_i = manifest->algorithms[i];
    if (!entry_i.name || !entry_i.create) throw InputError("algorithm plugin '" + path + "': entry " + std::to_string(i) + " is incomplete");
    {  // what it declares must hold together before anyone tunes it
      const std::unique_ptr<TrainingAlgorithm> probe(entry_i.create());
      if (!probe) throw InputError("algorithm plugin '" + path + "': " + entry_i.name + " could not be created");
      validate_hyperparameter_specs(probe->hyperparameter_specs(),
                                    "algorithm plugin '" + path + "': " + std::string(entry_i.name));
    }
    try {
      register_algorithm(entry_i.name, [create = entry_i.create] { return std::unique_ptr<TrainingAlgorithm>(create()); });
    } catch (const Error& e) {
      throw InputError("algorithm plugin '" + path + "': " + e.what());
    }
    plugin.algorithms.push_back(entry_i.name);
  }
  return record_loaded_plugin(canonical, std::move(plugin));
}

std::string resolve_algorithm(const std::string& value) { return resolve_algorithm(algorithm_reference(value)); }

std::string resolve_algorithm(const AlgorithmReference& ref) {
  if (ref.kind == AlgorithmReference::Kind::python) {
    load_python_submission(ref.value);
  } else if (ref.kind == AlgorithmReference::Kind::library) {
    load_algorithm_plugin(ref.file.path);
  }
  return algorithm_name_of(ref);
}

void load_algorithm_files(const std::vector<std::string>& values) {
  for (const auto& value : values)
    if (algorithm_reference(value).names_a_file()) resolve_algorithm(value);
}

std::vector<AlgorithmInfo> named_algorithm_infos(const std::vector<std::string>& values) {
  if (values.empty()) return algorithm_infos();
  std::vector<std::string> names;  // a library may define several
  for (const auto& value : values) {
    if (algorithm_reference(value).whole_library()) {
      const LoadedPlugin& plugin = load_algorithm_plugin(value);
      names.insert(names.end(), plugin.algorithms.begin(), plugin.algorithms.end());
    } else {
      names.push_back(resolve_algorithm(value));
    }
  }
  std::vector<AlgorithmInfo> infos;
  for (const auto& name : names) infos.push_back(algorithm_info(name));
  return infos;
}

}  // namespace pacer
