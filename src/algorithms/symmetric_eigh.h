#pragma once
// Eigendecomposition of a symmetric matrix for the preconditioners (Shampoo, SOAP), working
// around LAPACK's single-precision workspace query: ssyevd reports its workspace size as a float,
// which cannot represent sizes above 2^24 exactly, so float32 matrices larger than about 2900 x
// 2900 fail with "illegal value" (seen with SOAP on fmnist_cnn's 3136-wide dense layer). Those are
// decomposed in float64 and the results cast back.
//
//   auto [eigenvalues, eigenvectors] = pacer::symmetric_eigh(factor);   // ascending, as linalg_eigh
#include <ATen/core/Tensor.h>

#include <tuple>

namespace pacer {

std::tuple<at::Tensor, at::Tensor> symmetric_eigh(const at::Tensor& matrix);

}  // namespace pacer
