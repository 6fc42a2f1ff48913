#pragma once
// Training algorithms by name, as plain data: each built-in's description and hyperparameters
// (defaults, ranges), and every algorithm registered at run time (a plugin, a Python submission),
// described on demand. Listing, planning sweeps and scoring read names and declarations here
// without LibTorch; the training layer creates algorithms under these names
// (algorithms/registry.h: create_algorithm).
//
//   for (const auto& info : pacer::algorithm_infos()) std::cout << info.name << "\n";
//   pacer::AlgorithmInfo adam = pacer::algorithm_info("adam");   // InputError if unknown
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/hyperparameters.h"

namespace pacer {

struct AlgorithmInfo {
  std::string name;
  std::string description;
  std::vector<HyperparameterSpec> hyperparameters;
};

// A built-in: its own hyperparameters, then the common ones (label smoothing, dropout, gradient
// clipping) with the defaults it overrides.
struct BuiltinAlgorithm {
  std::string name;
  std::string description;
  std::vector<HyperparameterSpec> own;
  std::vector<std::pair<std::string, double>> common_defaults;
  AlgorithmInfo info() const;
};

// The hyperparameters every built-in takes after its own.
std::vector<HyperparameterSpec> common_hyperparameter_specs();
const std::vector<BuiltinAlgorithm>& builtin_algorithms();  // in catalog order
const BuiltinAlgorithm& builtin_algorithm(const std::string& name);  // Error if not a built-in

// An algorithm registered at run time, described when asked (its description and declarations
// come from an instance, which only the training layer can make). Error when `name` is empty or
// taken, or `describe` is empty.
using AlgorithmDescriber = std::function<AlgorithmInfo()>;
void register_algorithm_info(const std::string& name, AlgorithmDescriber describe);

std::vector<std::string> algorithm_names();  // the built-ins, then in registration order
std::vector<AlgorithmInfo> algorithm_infos();
AlgorithmInfo algorithm_info(const std::string& name);  // InputError listing the valid names

}  // namespace pacer
