#pragma once
// Creating training algorithms by name: each built-in of the catalog (catalog/algorithm_infos.h,
// where names, descriptions and hyperparameters are listed without torch) has its factory here;
// an out-of-tree algorithm (a plugin, a Python submission) registers its factory, which also
// enters its name in the catalog.
//
//   pacer::register_algorithm("my_sgd", [] { return std::make_unique<MySgd>(); });
//   auto algorithm = pacer::create_algorithm("my_sgd");
#include <functional>
#include <memory>
#include <string>

#include "catalog/algorithm_infos.h"
#include "core/export.h"

namespace pacer {

class TrainingAlgorithm;

using AlgorithmFactory = std::function<std::unique_ptr<TrainingAlgorithm>()>;

// Error when `name` is empty, already taken, or the factory is empty.
// Exported (PACER_API): the Python bridge registers each submission it loads.
PACER_API void register_algorithm(const std::string& name, AlgorithmFactory factory);

// InputError listing the valid names when `name` is unknown.
std::unique_ptr<TrainingAlgorithm> create_algorithm(const std::string& name);

}  // namespace pacer
