#include "algorithms/registry.h"

#include <map>
#include <mutex>
#include <utility>

#include "algorithms/adafactor.h"
#include "algorithms/adam_family.h"
#include "algorithms/ademamix.h"
#include "algorithms/lamb.h"
#include "algorithms/lion.h"
#include "algorithms/momentum_family.h"
#include "algorithms/muon.h"
#include "algorithms/sam.h"
#include "algorithms/schedule_free_adamw.h"
#include "algorithms/shampoo.h"
#include "algorithms/soap.h"
#include "core/error.h"

namespace pacer {
namespace {

// The factories, by name: the built-ins (under their catalog names) and the registered ones.
struct Factories {
  Factories() {
    // Every built-in is a recipe of the one update-rule shape (TensorwiseAlgorithm): the
    // first-generation baselines, then the state-of-the-art ones (docs/algorithms.md).
    for (auto recipe : {sgd_recipe, momentum_recipe, nesterov_recipe, adam_recipe, adamw_recipe, nadamw_recipe,
                        lamb_recipe, lion_recipe, adafactor_recipe, ademamix_recipe, muon_recipe,
                        schedule_free_adamw_recipe, shampoo_recipe, soap_recipe, sam_recipe}) {
      TensorwiseRecipe r = recipe();
      add(r.name, [r] { return std::make_unique<TensorwiseAlgorithm>(r); });
    }
  }
  void add(const std::string& name, AlgorithmFactory factory) {
    builtin_algorithm(name);  // Error if the catalog does not list it
    by_name.emplace(name, std::move(factory));
  }
  std::mutex mutex;
  std::map<std::string, AlgorithmFactory> by_name;
};

// Built on first use, so registration from other translation units never races static init.
Factories& factories() {
  static Factories f;
  return f;
}

}  // namespace

void register_algorithm(const std::string& name, AlgorithmFactory factory) {
  if (name.empty()) throw Error("register_algorithm: empty name");
  if (!factory) throw Error("register_algorithm: '" + name + "' has no factory");
  Factories& f = factories();
  std::lock_guard<std::mutex> lock(f.mutex);
  // The catalog describes it from an instance, when asked.
  register_algorithm_info(name, [name, factory] {
    const std::unique_ptr<TrainingAlgorithm> algorithm = factory();
    return AlgorithmInfo{name, algorithm->description(), algorithm->hyperparameter_specs()};
  });  // Error for a taken name: nothing is added
  f.by_name.emplace(name, std::move(factory));
}

std::unique_ptr<TrainingAlgorithm> create_algorithm(const std::string& name) {
  AlgorithmFactory factory;
  {
    Factories& f = factories();
    std::lock_guard<std::mutex> lock(f.mutex);
    if (const auto it = f.by_name.find(name); it != f.by_name.end()) factory = it->second;
  }
  if (!factory) {
    std::string valid;
    for (const auto& n : algorithm_names()) valid += (valid.empty() ? "" : ", ") + n;
    throw InputError("unknown algorithm '" + name + "' (valid: " + valid + ")");
  }
  return factory();
}

}  // namespace pacer
