#pragma once
// Loads training algorithms from shared libraries built against the SDK (algorithms/plugin_abi.h)
// and registers them by name, so every command that takes `-a NAME` also takes a library path.
// Torch-free header.
//
//   std::string name = pacer::resolve_algorithm("./build/liblion.so");   // loads, registers: "lion"
//   auto algorithm = pacer::create_algorithm(name);
#include <string>
#include <vector>

namespace pacer {

struct LoadedPlugin {
  std::string path;                     // as given
  std::string content_hash;             // of the file's bytes, hex: a rebuilt library is a new one
  std::vector<std::string> algorithms;  // the names it registered
  bool python = false;                  // a Python submission (algorithms/python_submission_loader.h)
  std::string search_space;             // its tuning_search_space.json, when it has one beside it
};

// Loads the library once per path and registers its algorithms. InputError naming the path when
// it cannot be opened, lacks the entry point, or was built against another SDK ABI, LibTorch
// version or C++ ABI (both versions named), or when one of its names is already taken.
const LoadedPlugin& load_algorithm_plugin(const std::string& path);

// Whether an `-a` value names a library rather than a registered algorithm: it contains '/' or
// ends in ".so" (optionally followed by ":name").
bool is_plugin_reference(const std::string& value);

// An `-a` value as an algorithm name: a registered name stays as it is; "PATH" loads the library
// and names its only algorithm; "PATH:NAME" picks one of several; a Python submission (a .py
// file or a folder with submission.py, algorithms/python_submission_loader.h) is loaded and
// named "<name>.py". InputError otherwise.
std::string resolve_algorithm(const std::string& value);

// The plugin an algorithm came from, if any (recorded with studies).
const LoadedPlugin* plugin_of(const std::string& algorithm);

// Records algorithms loaded from a file by other means (a Python submission) under its canonical
// path, so that plugin_of and the sweep identities know them; returns the record kept.
const LoadedPlugin& record_loaded_plugin(const std::string& canonical, LoadedPlugin plugin);
// The loaded record of a canonical path, if any.
const LoadedPlugin* loaded_plugin_at(const std::string& canonical);

// FNV-1a over the files' bytes, in order, as hex: a changed file is a new algorithm.
std::string content_hash(const std::vector<std::string>& paths);

}  // namespace pacer
