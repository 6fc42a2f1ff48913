#pragma once
// Which algorithms came from files (what an `-a` value names: catalog/algorithm_reference.h). The training layer loads
// plugin libraries and Python submissions (algorithms/plugin_loader.h, python_submission_loader.h)
// and records each here; sweeps, studies and boards read the records (the file, its content hash,
// its search space) without LibTorch.
//
//   const pacer::LoadedPlugin* plugin = pacer::plugin_of("signum");   // null for a built-in
//   std::string name = pacer::algorithm_name_of("./libsignum.so");    // once it is loaded
#include <string>
#include <vector>

#include "catalog/algorithm_reference.h"

namespace pacer {

struct LoadedPlugin {
  std::string path;                     // as given
  std::string content_hash;             // of the file's bytes, hex: a rebuilt library is a new one
  std::vector<std::string> algorithms;  // the names it registered
  bool python = false;                  // a Python submission (algorithms/python_submission_loader.h)
  std::string search_space;             // its tuning_search_space.json, when it has one beside it
};

// An `-a` value as an algorithm name: a name stays as it is; a file reference names the only
// algorithm of the loaded file, or NAME of "PATH:NAME". InputError when that file is not loaded
// (only the training layer loads files: algorithms/plugin_loader.h, resolve_algorithm) or does not
// define the name.
std::string algorithm_name_of(const AlgorithmReference& ref);
std::string algorithm_name_of(const std::string& value);  // of algorithm_reference(value)

// Records the algorithms loaded from a file under its canonical path; returns the record kept
// (the first one, if the path was recorded before).
const LoadedPlugin& record_loaded_plugin(const std::string& canonical, LoadedPlugin plugin);
// The loaded record of a canonical path, if any.
const LoadedPlugin* loaded_plugin_at(const std::string& canonical);
// The plugin an algorithm came from, if any (recorded with studies).
const LoadedPlugin* plugin_of(const std::string& algorithm);

// FNV-1a over the files' bytes, in order, as hex: a changed file is a new algorithm.
std::string content_hash(const std::vector<std::string>& paths);

}  // namespace pacer
