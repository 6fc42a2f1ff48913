#include "algorithms/sam.h"

#include <ATen/ATen.h>

#include "algorithms/adam_family.h"
#include "algorithms/device_scalars.h"

namespace pacer {

at::Tensor sam_ascend(at::Tensor& params, const at::Tensor& grads, const SamOptions& options) {
  at::Tensor saved = params.clone();
  at::Tensor direction = options.adaptive ? params.abs() * grads : grads;
  if (scalars_stay_on_device(params)) {  // the same scale as a 0-dim tensor: no host sync
    const at::Tensor scale = options.rho / (direction.norm() + 1e-12);
    if (options.adaptive) {
      params.add_(params.square().mul_(grads).mul_(scale));
    } else {
      params.add_(grads * scale);
    }
    return saved;
  }
  const double scale = options.rho / (direction.norm().item<double>() + 1e-12);
  if (options.adaptive) {
    params.addcmul_(params.square(), grads, scale);  // uses the saved values: square() is computed first
  } else {
    params.add_(grads, scale);
  }
  return saved;
}

TensorwiseRecipe sam_recipe() {
  TensorwiseRecipe r = adam_family_recipe("sam", AdamVariant::adamw);  // AdamW's rule and decay, warmup + cosine
  r.gradient_point = [](at::Tensor& params, const at::Tensor& grads, const Hyperparameters& hp) {
    return sam_ascend(params, grads, SamOptions{hp.get("rho"), hp.get("adaptive") != 0.0});
  };
  return r;
}

}  // namespace pacer
