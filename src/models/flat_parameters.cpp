#include "models/flat_parameters.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>

#include "core/error.h"

namespace pacer {
namespace {

// Whether `tensors` already lie back to back, in order, in one storage (an earlier
// FlatParameters bound them): then a second one adopts that buffer instead of rebinding, so the
// framework and several algorithm instances (per-worker optimizer state) see the same memory.
bool back_to_back(const std::vector<at::Tensor>& tensors) {
  if (tensors.empty() || !tensors[0].defined()) return false;
  int64_t expected = tensors[0].storage_offset();
  for (const auto& t : tensors) {
    if (!t.defined() || !t.is_contiguous() || !t.storage().is_alias_of(tensors[0].storage()) ||
        t.storage_offset() != expected) {
      return false;
    }
    expected += t.numel();
  }
  return true;
}

at::Tensor span_of(const at::Tensor& first, int64_t total) {
  return at::empty({0}, first.options().requires_grad(false)).set_(first.storage(), first.storage_offset(), {total}, {1});
}

}  // namespace

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
  std::vector<at::Tensor> data, grads;
  for (const auto& p : parameters_) {
    data.push_back(p.detach());
    grads.push_back(p.grad());
  }
  if (back_to_back(data) && back_to_back(grads)) {
    values_ = span_of(data[0], total);
    grads_ = span_of(grads[0], total);
    return;
  }
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
