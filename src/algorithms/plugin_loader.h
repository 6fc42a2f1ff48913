#pragma once
// Loads training algorithms from shared libraries built against the SDK (algorithms/plugin_abi.h)
// and registers them by name, so every command that takes `-a NAME` also takes a library path;
// what was loaded is recorded in the catalog (catalog/plugin_records.h). Torch-free header.
//
//   std::string name = pacer::resolve_algorithm("./build/liblion.so");   // loads, registers: "lion"
//   auto algorithm = pacer::create_algorithm(name);
#include <string>
#include <vector>

#include "catalog/algorithm_infos.h"
#include "catalog/plugin_records.h"

namespace pacer {

// Loads the library once per path and registers its algorithms. InputError naming the path when
// it cannot be opened, lacks the entry point, or was built against another SDK ABI, LibTorch
// version or C++ ABI (both versions named), or when one of its names is already taken.
const LoadedPlugin& load_algorithm_plugin(const std::string& path);

// An `-a` value as an algorithm name, loading what it names first: a registered name stays as it
// is; "PATH" loads the library and names its only algorithm; "PATH:NAME" picks one of several; a
// Python submission (a .py file or a folder with submission.py, algorithms/
// python_submission_loader.h) is loaded and named "<name>.py". InputError otherwise.
std::string resolve_algorithm(const AlgorithmReference& ref);
std::string resolve_algorithm(const std::string& value);  // of algorithm_reference(value)

// Loads what each value names that is a file (a plugin library, a Python submission), so that the
// torch-free use-cases (plan_tune, make_board_setup, plan_scale) find it by algorithm_name_of.
// The commands that train call it with their `-a` values before planning.
void load_algorithm_files(const std::vector<std::string>& values);

// The infos of the algorithms `values` name (names, plugin libraries, Python submissions, which
// are loaded); every registered algorithm when `values` is empty. InputError for an unknown name.
std::vector<AlgorithmInfo> named_algorithm_infos(const std::vector<std::string>& values);

}  // namespace pacer
