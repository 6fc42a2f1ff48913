#pragma once
// A built-in per-tensor algorithm's recipe starts from its catalog entry (catalog/algorithm_infos.cpp:
// name, description, hyperparameters, common defaults); its file adds the update rule and the
// schedule's shape.
//
//   pacer::TensorwiseRecipe r = pacer::builtin_recipe("lamb");
//   r.make_rule = ...;
#include <string>

#include "algorithms/tensorwise_algorithm.h"
#include "catalog/algorithm_infos.h"

namespace pacer {

inline TensorwiseRecipe builtin_recipe(const std::string& name) {
  const BuiltinAlgorithm& b = builtin_algorithm(name);
  TensorwiseRecipe r;
  r.name = b.name;
  r.description = b.description;
  r.hyperparameters = b.own;
  r.common_defaults = b.common_defaults;
  return r;
}

}  // namespace pacer
