#pragma once
// Adam, AdamW and NAdamW, as the AlgoPerf baselines run them: linear warmup for warmup_factor of
// the step hint, then cosine decay to 0 at the step hint; the rule (update_rules.h's adam_step)
// runs on the flat parameter buffer.
//
//   auto nadamw = std::make_unique<pacer::TensorwiseAlgorithm>(pacer::nadamw_recipe());
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

TensorwiseRecipe adam_recipe();
TensorwiseRecipe adamw_recipe();
TensorwiseRecipe nadamw_recipe();

}  // namespace pacer
