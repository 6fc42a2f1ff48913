#include "algorithms/symmetric_eigh.h"

#include <ATen/ATen.h>

namespace pacer {

std::tuple<at::Tensor, at::Tensor> symmetric_eigh(const at::Tensor& matrix) {
  constexpr int64_t kLargestSinglePrecision = 2048;
  if (matrix.scalar_type() == at::kFloat && matrix.size(0) > kLargestSinglePrecision && matrix.is_cpu()) {
    auto [values, vectors] = at::linalg_eigh(matrix.to(at::kDouble));
    return {values.to(at::kFloat), vectors.to(at::kFloat)};
  }
  return at::linalg_eigh(matrix);
}

}  // namespace pacer
