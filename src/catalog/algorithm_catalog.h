#pragma once
// Algorithms as `pacer list` shows them: each with its description, the plugin library it came
// from, and its hyperparameters (default, range, description); or the same as JSON.
//
//   std::fputs(pacer::algorithm_catalog_text(pacer::algorithm_infos()).c_str(), stdout);
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "catalog/algorithm_infos.h"

namespace pacer {

std::string algorithm_catalog_text(const std::vector<AlgorithmInfo>& infos);
// An array; an unbounded range end is null (JSON has no infinity), excluded ends are flagged.
nlohmann::ordered_json algorithm_catalog_json(const std::vector<AlgorithmInfo>& infos);

}  // namespace pacer
