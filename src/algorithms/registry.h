#pragma once
// The built-in training algorithms, by name. Listing needs no torch.
//
//   auto algorithm = pacer::create_algorithm("nadamw");
//   for (const auto& info : pacer::algorithm_infos()) std::cout << info.name << "\n";
#include <memory>
#include <string>
#include <vector>

#include "core/hyperparameters.h"

namespace pacer {

class TrainingAlgorithm;

struct AlgorithmInfo {
  std::string name;
  std::string description;
  std::vector<HyperparameterSpec> hyperparameters;
};

std::vector<std::string> algorithm_names();
std::vector<AlgorithmInfo> algorithm_infos();
// InputError listing the valid names when `name` is unknown.
std::unique_ptr<TrainingAlgorithm> create_algorithm(const std::string& name);

}  // namespace pacer
