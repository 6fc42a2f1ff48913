#include "models/flat_parameters.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>

#include "core/error.h"

namespace pacer {

FlatParameters::FlatParameters(Network& network) {
  parameters_ = network.parameters();
  const std::vector<ParamType> types = network.param_types();
  if (types.size() != parameters_.size()) throw Error("network declares the wrong number of parameter types");
  if (parameters_.empty()) throw Error("network has no parameters");
  int64_t total = 0;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const auto& p = parameters_[i];
    if (p.scalar_type() != parameters_[0].scalar_type() || p.device() != parameters_[0].device()) {
      throw Error("all parameters must share one dtype and device to be flattened");
    }
    slices_.push_back({total, p.numel(), types[i]});
    total += p.numel();
  }
  at::NoGradGuard no_grad;
  values_ = at::empty({total}, parameters_[0].options().requires_grad(false));
  grads_ = at::zeros({total}, parameters_[0].options().requires_grad(false));
  for (size_t i = 0; i < parameters_.size(); ++i) {
    auto& p = parameters_[i];
    const auto& s = slices_[i];
    at::Tensor value_view = values_.narrow(0, s.offset, s.numel).view(p.sizes());
    value_view.copy_(p.detach());
    p.set_data(value_view);
    // A defined .grad() makes AccumulateGrad add into it in place (under no-grad backward),
    // so gradients land in grads_ without any copy.
    p.mutable_grad() = grads_.narrow(0, s.offset, s.numel).view(p.sizes());
  }
}

void FlatParameters::zero_grad() { grads_.zero_(); }

at::Tensor FlatParameters::mask_for(const std::vector<ParamType>& types) const {
  at::Tensor mask = at::zeros_like(values_);
  for (const auto& s : slices_) {
    if (std::find(types.begin(), types.end(), s.type) != types.end()) mask.narrow(0, s.offset, s.numel).fill_(1.0);
  }
  return mask;
}

}  // namespace pacer
