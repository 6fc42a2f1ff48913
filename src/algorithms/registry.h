#pragma once
// Training algorithms by name: a registration function fills the table (the built-ins register
// themselves on first use; an out-of-tree algorithm registers the same way), and every command
// looks names up here. Listing and looking up declarations need no torch.
//
//   pacer::register_algorithm("my_sgd", [] { return std::make_unique<MySgd>(); });
//   auto algorithm = pacer::create_algorithm("my_sgd");
//   for (const auto& info : pacer::algorithm_infos()) std::cout << info.name << "\n";
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/export.h"
#include "core/hyperparameters.h"

namespace pacer {

class TrainingAlgorithm;

struct AlgorithmInfo {
  std::string name;
  std::string description;
  std::vector<HyperparameterSpec> hyperparameters;
};

using AlgorithmFactory = std::function<std::unique_ptr<TrainingAlgorithm>()>;

// Error when `name` is empty, already taken, or the factory is empty.
// Exported (PACER_API): the Python bridge registers each submission it loads.
PACER_API void register_algorithm(const std::string& name, AlgorithmFactory factory);

std::vector<std::string> algorithm_names();  // in registration order
std::vector<AlgorithmInfo> algorithm_infos();
// InputError listing the valid names when `name` is unknown (both).
AlgorithmInfo algorithm_info(const std::string& name);
std::unique_ptr<TrainingAlgorithm> create_algorithm(const std::string& name);

}  // namespace pacer
