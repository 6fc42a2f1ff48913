#include "algorithms/registry.h"

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

struct Registry;
void add(Registry& r, const std::string& name, AlgorithmFactory factory);

// The built-ins.
struct Registry {
  Registry() {
    add(*this, "sgd", [] { return std::make_unique<MomentumFamilyAlgorithm>(MomentumKind::none); });
    add(*this, "momentum", [] { return std::make_unique<MomentumFamilyAlgorithm>(MomentumKind::heavy_ball); });
    add(*this, "nesterov", [] { return std::make_unique<MomentumFamilyAlgorithm>(MomentumKind::nesterov); });
    add(*this, "adam", [] { return std::make_unique<AdamFamilyAlgorithm>(AdamVariant::adam); });
    add(*this, "adamw", [] { return std::make_unique<AdamFamilyAlgorithm>(AdamVariant::adamw); });
    add(*this, "nadamw", [] { return std::make_unique<AdamFamilyAlgorithm>(AdamVariant::nadamw); });
    // The state-of-the-art baselines (docs/algorithms.md).
    for (auto recipe : {lamb_recipe, lion_recipe, adafactor_recipe, ademamix_recipe, muon_recipe,
                        schedule_free_adamw_recipe, shampoo_recipe, soap_recipe}) {
      TensorwiseRecipe r = recipe();
      const std::string name = r.name;
      add(*this, name, [r] { return std::make_unique<TensorwiseAlgorithm>(r); });
    }
    add(*this, "sam", [] { return std::make_unique<SamAlgorithm>(); });
  }
  std::mutex mutex;
  std::vector<std::pair<std::string, AlgorithmFactory>> entries;  // registration order
};

void add(Registry& r, const std::string& name, AlgorithmFactory factory) {
  if (name.empty()) throw Error("register_algorithm: empty name");
  if (!factory) throw Error("register_algorithm: '" + name + "' has no factory");
  for (const auto& [n, f] : r.entries) {
    if (n == name) throw Error("register_algorithm: the name '" + name + "' is already taken");
  }
  r.entries.emplace_back(name, std::move(factory));
}

// Built on first use, so registration from other translation units never races static init.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_algorithm(const std::string& name, AlgorithmFactory factory) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  add(r, name, std::move(factory));
}

std::vector<std::string> algorithm_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [n, f] : r.entries) names.push_back(n);
  return names;
}

std::unique_ptr<TrainingAlgorithm> create_algorithm(const std::string& name) {
  AlgorithmFactory factory;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& [n, f] : r.entries) {
      if (n == name) factory = f;
    }
  }
  if (!factory) {
    std::string valid;
    for (const auto& n : algorithm_names()) valid += (valid.empty() ? "" : ", ") + n;
    throw InputError("unknown algorithm '" + name + "' (valid: " + valid + ")");
  }
  return factory();
}

AlgorithmInfo algorithm_info(const std::string& name) {
  auto algorithm = create_algorithm(name);
  return {name, algorithm->description(), algorithm->hyperparameter_specs()};
}

std::vector<AlgorithmInfo> algorithm_infos() {
  std::vector<AlgorithmInfo> infos;
  for (const auto& n : algorithm_names()) infos.push_back(algorithm_info(n));
  return infos;
}

}  // namespace pacer
