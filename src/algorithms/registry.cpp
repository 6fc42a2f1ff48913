#include "algorithms/registry.h"

#include "algorithms/adam_family.h"
#include "algorithms/momentum_family.h"
#include "core/error.h"

namespace pacer {

std::vector<std::string> algorithm_names() { return {"sgd", "momentum", "nesterov", "adam", "adamw", "nadamw"}; }

std::unique_ptr<TrainingAlgorithm> create_algorithm(const std::string& name) {
  if (name == "sgd") return std::make_unique<MomentumFamilyAlgorithm>(MomentumKind::none);
  if (name == "momentum") return std::make_unique<MomentumFamilyAlgorithm>(MomentumKind::heavy_ball);
  if (name == "nesterov") return std::make_unique<MomentumFamilyAlgorithm>(MomentumKind::nesterov);
  if (name == "adam") return std::make_unique<AdamFamilyAlgorithm>(AdamVariant::adam);
  if (name == "adamw") return std::make_unique<AdamFamilyAlgorithm>(AdamVariant::adamw);
  if (name == "nadamw") return std::make_unique<AdamFamilyAlgorithm>(AdamVariant::nadamw);
  std::string valid;
  for (const auto& n : algorithm_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw InputError("unknown algorithm '" + name + "' (valid: " + valid + ")");
}

std::vector<AlgorithmInfo> algorithm_infos() {
  std::vector<AlgorithmInfo> infos;
  for (const auto& n : algorithm_names()) {
    auto algorithm = create_algorithm(n);
    infos.push_back({n, algorithm->description(), algorithm->hyperparameter_specs()});
  }
  return infos;
}

}  // namespace pacer
