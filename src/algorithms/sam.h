#pragma once
// Sharpness-Aware Minimization (Foret et al. 2021) as davda54/sam's sam.py, over AdamW: each step
// takes the gradient at w, moves to the nearby worst case w + e (e = rho g / |g|, or, adaptive
// (ASAM), rho w^2 g / | |w| g |), takes the gradient there (the workload's loss is computed twice,
// both through the framework, so data-parallel workers combine both), returns to w and applies
// AdamW with the second gradient. The recipe is AdamW's with sam_ascend as its gradient point.
//
//   at::Tensor saved = pacer::sam_ascend(params, grads, {.rho = 0.05});   // params now at w + e
//   ...gradient at the perturbed point into grads...
//   params.copy_(saved);
//   pacer::adam_step(params, grads, adam_state, adam_options);
#include <ATen/core/Tensor.h>

#include "algorithms/tensorwise_algorithm.h"

namespace pacer {

struct SamOptions {
  double rho = 0.05;
  bool adaptive = false;
};

// Moves the flat `params` to the perturbed point in place; returns a copy of where they were.
at::Tensor sam_ascend(at::Tensor& params, const at::Tensor& grads, const SamOptions& options);

TensorwiseRecipe sam_recipe();

}  // namespace pacer
