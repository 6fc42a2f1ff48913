#pragma once
// SGD, heavy-ball momentum and Nesterov momentum, as the AlgoPerf baselines run them: L2 weight
// decay added to the gradient, linear warmup, then linear decay to lr*end_factor over
// decay_steps_factor of the remaining step hint, constant afterwards; the rule (update_rules.h's
// sgd_step) runs on the flat parameter buffer.
//
//   auto momentum = std::make_unique<pacer::TensorwiseAlgorithm>(pacer::momentum_recipe());
#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

TensorwiseRecipe sgd_recipe();
TensorwiseRecipe momentum_recipe();
TensorwiseRecipe nesterov_recipe();

}  // namespace pacer
