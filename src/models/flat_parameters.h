#pragma once
// All parameters of a network in one contiguous buffer, and all their gradients in another.
// Each parameter (and its .grad()) becomes a view into the flat buffers, so an optimizer update
// is a handful of tensor ops over the whole model instead of a handful per tensor, and zeroing
// the gradients is one op. Backward accumulates into the existing .grad() views in place.
//
//   pacer::FlatParameters flat(*net);
//   flat.zero_grad();
//   loss.backward();
//   flat.values().add_(flat.grads(), -lr);   // under at::NoGradGuard
#include <ATen/core/Tensor.h>

#include <vector>

#include "core/export.h"
#include "models/network.h"

namespace pacer {

struct PACER_API ParamSlice {
  int64_t offset = 0;
  int64_t numel = 0;
  ParamType type = ParamType::weight;
};

class PACER_API FlatParameters {
 public:
  FlatParameters() = default;
  // Rebinds the network's parameters; they must share one dtype and device.
  explicit FlatParameters(Network& network);

  at::Tensor& values() { return values_; }
  at::Tensor& grads() { return grads_; }
  const at::Tensor& values() const { return values_; }
  const at::Tensor& grads() const { return grads_; }
  const std::vector<ParamSlice>& slices() const { return slices_; }
  const std::vector<at::Tensor>& parameters() const { return parameters_; }
  int64_t numel() const { return values_.defined() ? values_.numel() : 0; }

  void zero_grad();
  // 1 where the slice's type is in `types`, else 0: a mask for type-dependent updates.
  at::Tensor mask_for(const std::vector<ParamType>& types) const;

 private:
  at::Tensor values_, grads_;
  std::vector<ParamSlice> slices_;
  std::vector<at::Tensor> parameters_;
};

}  // namespace pacer
