#pragma once
// Adam, AdamW and NAdamW, as the AlgoPerf baselines run them: linear warmup for warmup_factor of
// the step hint, then cosine decay to 0 at the step hint; the rule (update_rules.h's adam_step)
// runs on the flat parameter buffer.
//
//   auto nadamw = std::make_unique<pacer::TensorwiseAlgorithm>(pacer::nadamw_recipe());
#include <string>

#include "algorithms/tensorwise_algorithm.h"
#include "algorithms/update_rules.h"

namespace pacer {

TensorwiseRecipe adam_recipe();
TensorwiseRecipe adamw_recipe();
TensorwiseRecipe nadamw_recipe();
// The recipe of catalog entry `name` with the Adam rule of `variant` and its weight decay (SAM's
// starts from it).
TensorwiseRecipe adam_family_recipe(const std::string& name, AdamVariant variant);

}  // namespace pacer
