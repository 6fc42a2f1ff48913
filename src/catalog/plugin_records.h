#pragma once
// Which algorithms came from files, and which file an `-a` value names. The training layer loads
// plugin libraries and Python submissions (algorithms/plugin_loader.h, python_submission_loader.h)
// and records each here; sweeps, studies and boards read the records (the file, its content hash,
// its search space) without LibTorch.
//
//   const pacer::LoadedPlugin* plugin = pacer::plugin_of("signum");   // null for a built-in
//   std::string name = pacer::algorithm_name_of("./libsignum.so");    // once it is loaded
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

// Whether an `-a` value names a library rather than a registered algorithm: it contains '/' or
// ends in ".so" (optionally followed by ":name").
bool is_plugin_reference(const std::string& value);
// A value naming a .py file, or a folder with a submission.py in it.
bool is_python_submission(const std::string& value);

// The file an `-a` value names: "PATH" or "PATH:NAME" for a plugin library (path: PATH as given;
// canonical: where it is recorded), the .py file or a folder's submission.py for a Python
// submission.
struct AlgorithmFile {
  std::string path;
  std::string canonical;
  std::string name;  // after ':'; empty: the file's only algorithm
  bool python = false;
};
AlgorithmFile algorithm_file(const std::string& value);

// An `-a` value as an algorithm name: a name stays as it is; a file reference names the only
// algorithm of the loaded file, or NAME of "PATH:NAME". InputError when that file is not loaded
// (only the training layer loads files: algorithms/plugin_loader.h, resolve_algorithm) or does not
// define the name.
std::string algorithm_name_of(const std::string& value);

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
