#pragma once
// What a command that runs untrusted algorithms only in contained trials (tune, board, scale) knows
// of them without running their code here: each file (a Python submission, a plugin library) is
// loaded in a contained process (`describe`, e.g. `pacer-train describe-algorithms`, restricted
// like a trial), which writes what it registered with algorithm_declarations_json; this process
// registers those declarations in the catalog (names, descriptions, hyperparameters, the files'
// records) so that planning, search-space checks and the trials' command lines find them, and
// no code of theirs ever runs in it. Torch-free header.
//
//   pacer::declare_algorithm_files({"examples/python_submission/nadamw.py"}, [](const auto& files) {
//     return run_describe_process(files);   // the JSON the contained process wrote
//   });
//   pacer::algorithm_info("nadamw.py").hyperparameters;   // from its tuning_search_space.json
#include <functional>
#include <string>
#include <vector>

namespace pacer {

// The JSON text the contained process wrote for `files` (InputError when it could not load them).
using DescribeInContainedProcess = std::function<std::string(const std::vector<std::string>& files)>;

// Declares the values that name files (others are left alone; a file declared or loaded already is
// skipped). InputError when the description does not hold together: another algorithm's name for a
// submission, no name, a name already taken, hyperparameters that do not validate.
void declare_algorithm_files(const std::vector<std::string>& values, const DescribeInContainedProcess& describe);

// In the contained process: loads each value (resolve_algorithm) and returns their declarations.
std::string algorithm_declarations_json(const std::vector<std::string>& values);

}  // namespace pacer
