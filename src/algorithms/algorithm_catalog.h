#pragma once
// Algorithms as `pacer list` shows them: each with its description, the plugin library it came
// from, and its hyperparameters (default, range, description); or the same as JSON. Also which
// algorithms `-a` names: a plugin library given without ":NAME" means every algorithm it defines.
//
//   const auto infos = pacer::named_algorithm_infos({"./libsignum.so"});   // loads it
//   std::fputs(pacer::algorithm_catalog_text(infos).c_str(), stdout);
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "algorithms/registry.h"

namespace pacer {

// The infos of the algorithms `values` name (names, plugin libraries, Python submissions, which
// are loaded); every registered algorithm when `values` is empty. InputError for an unknown name.
std::vector<AlgorithmInfo> named_algorithm_infos(const std::vector<std::string>& values);

std::string algorithm_catalog_text(const std::vector<AlgorithmInfo>& infos);
// An array; an unbounded range end is null (JSON has no infinity), excluded ends are flagged.
nlohmann::ordered_json algorithm_catalog_json(const std::vector<AlgorithmInfo>& infos);

}  // namespace pacer
