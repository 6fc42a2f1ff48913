#pragma once
// The Adasum operator (Maleki et al., 2021) on flat buffers holding several tensors back to back:
// per tensor, Adasum(a, b) = (1 - a.b / (2 |a|^2)) a + (1 - a.b / (2 |b|^2)) b, with dot products
// and norms accumulated in double precision (no overflow or underflow for any finite float input)
// and the combination computed in double and rounded once. Orthogonal inputs give their sum,
// parallel inputs their mean; a zero input gives the other one.
//
// adasum_tree_reference() is the definition the distributed combiner must reproduce: for
// p = 2^k workers, the binary tree Adasum(Adasum(g0, g1), Adasum(g2, g3)) ...; for other p, the
// p - 2^k highest workers are first folded into the lowest ones (g_i <- Adasum(g_i, g_{2^k+i})),
// then the power-of-two tree runs over g_0 .. g_{2^k-1}.
//
//   std::vector<int64_t> numels = {784 * 128, 128};        // two tensors in one flat buffer
//   at::Tensor c = pacer::adasum(a, b, numels);
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace pacer {

struct AdasumDots {
  double ab = 0.0, aa = 0.0, bb = 0.0;
  AdasumDots& operator+=(const AdasumDots& o) {
    ab += o.ab;
    aa += o.aa;
    bb += o.bb;
    return *this;
  }
};

// Dot products of two 1-D contiguous tensors of one size, in double.
AdasumDots adasum_dots(const at::Tensor& a, const at::Tensor& b);
// The coefficients (ca, cb) of a and b; a zero input gets coefficient 1 (its term is zero).
std::pair<double, double> adasum_coefficients(const AdasumDots& dots);
// out = ca * a + cb * b, elementwise in double; `out` may be `a` or `b`.
void adasum_combine(at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double ca, double cb);

// Adasum of two flat buffers, tensor by tensor (`numels` sums to the buffer size).
at::Tensor adasum(const at::Tensor& a, const at::Tensor& b, const std::vector<int64_t>& numels);
// The same into `out`, which may be `a` or `b` (the combiners work in place).
void adasum_into(at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const std::vector<int64_t>& numels);
// Adasum over the workers' flat buffers in the reference tree order (see above).
at::Tensor adasum_tree_reference(const std::vector<at::Tensor>& buffers, const std::vector<int64_t>& numels);

// Largest power of two <= p.
int largest_power_of_two_at_most(int p);

}  // namespace pacer
