#include "distributed/adasum.h"

#include <ATen/ATen.h>

#include <numeric>

#include "core/error.h"

namespace pacer {
namespace {

// The loops below are the arithmetic of every Adasum reduction. `omp simd reduction` lets the
// compiler reorder the double sums into vector lanes (it may not on its own, without
// -ffast-math), and on x86-64 each loop is also built for x86-64-v3 (AVX2, FMA) and picked at load time, so
// one binary runs everywhere and uses the wide units where they exist. The order of the sums is
// fixed for a given build, so every rank and every virtual worker gets the same coefficients.
// Not under ThreadSanitizer: the clones' ifunc resolver runs while the program is being loaded,
// before the TSan runtime, and crashes there (make sanitize).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define PACER_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PACER_SIMD_CLONES
#endif

template <class T>
PACER_SIMD_CLONES AdasumDots dots_loop(const T* a, const T* b, int64_t n) {
  double ab = 0.0, aa = 0.0, bb = 0.0;
#pragma omp simd reduction(+ : ab, aa, bb)
  for (int64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(a[i]);
    const double y = static_cast<double>(b[i]);
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return {ab, aa, bb};
}

template <class T>
PACER_SIMD_CLONES void combine_loop(T* out, const T* a, const T* b, double ca, double cb, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<T>(ca * static_cast<double>(a[i]) + cb * static_cast<double>(b[i]));
  }
}

void check_pair(const at::Tensor& a, const at::Tensor& b, const char* what) {
  if (a.dim() != 1 || b.dim() != 1 || a.numel() != b.numel() || !a.is_contiguous() || !b.is_contiguous() ||
      a.scalar_type() != b.scalar_type()) {
    throw Error(std::string(what) + ": inputs must be 1-D contiguous tensors of one size and dtype");
  }
}

std::vector<int64_t> offsets_of(const std::vector<int64_t>& numels, int64_t total) {
  std::vector<int64_t> offsets(numels.size() + 1, 0);
  for (size_t i = 0; i < numels.size(); ++i) offsets[i + 1] = offsets[i] + numels[i];
  if (offsets.back() != total) {
    throw Error("adasum: the tensor sizes add up to " + std::to_string(offsets.back()) + ", the buffer has " +
                std::to_string(total) + " elements");
  }
  return offsets;
}

}  // namespace

AdasumDots adasum_dots(const at::Tensor& a, const at::Tensor& b) {
  check_pair(a, b, "adasum_dots");
  if (a.numel() == 0) return {};
  if (a.device().is_cpu() && a.scalar_type() == at::kFloat) {
    return dots_loop(a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
  }
  if (a.device().is_cpu() && a.scalar_type() == at::kDouble) {
    return dots_loop(a.data_ptr<double>(), b.data_ptr<double>(), a.numel());
  }
  const at::Tensor x = a.to(at::kDouble), y = b.to(at::kDouble);  // accelerators: tensor ops in double
  const at::Tensor d = at::stack({at::dot(x, y), at::dot(x, x), at::dot(y, y)}).cpu();
  const double* p = d.data_ptr<double>();
  return {p[0], p[1], p[2]};
}

std::pair<double, double> adasum_coefficients(const AdasumDots& d) {
  const double ca = d.aa > 0.0 ? 1.0 - d.ab / (2.0 * d.aa) : 1.0;
  const double cb = d.bb > 0.0 ? 1.0 - d.ab / (2.0 * d.bb) : 1.0;
  return {ca, cb};
}

void adasum_combine(at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double ca, double cb) {
  check_pair(a, b, "adasum_combine");
  check_pair(out, a, "adasum_combine");
  if (a.numel() == 0) return;
  if (a.device().is_cpu() && a.scalar_type() == at::kFloat) {
    combine_loop(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), ca, cb, a.numel());
  } else if (a.device().is_cpu() && a.scalar_type() == at::kDouble) {
    combine_loop(out.data_ptr<double>(), a.data_ptr<double>(), b.data_ptr<double>(), ca, cb, a.numel());
  } else {
    out.copy_(a.to(at::kDouble).mul(ca).add_(b.to(at::kDouble), cb));
  }
}

void adasum_into(at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const std::vector<int64_t>& numels) {
  check_pair(a, b, "adasum");
  check_pair(out, a, "adasum");
  const std::vector<int64_t> offsets = offsets_of(numels, a.numel());
  for (size_t t = 0; t < numels.size(); ++t) {
    const at::Tensor x = a.narrow(0, offsets[t], numels[t]), y = b.narrow(0, offsets[t], numels[t]);
    at::Tensor o = out.narrow(0, offsets[t], numels[t]);
    // Both dots are taken before `o` (possibly `x` or `y`) is written.
    const auto [ca, cb] = adasum_coefficients(adasum_dots(x, y));
    adasum_combine(o, x, y, ca, cb);
  }
}

at::Tensor adasum(const at::Tensor& a, const at::Tensor& b, const std::vector<int64_t>& numels) {
  at::Tensor out = at::empty_like(a);
  adasum_into(out, a, b, numels);
  return out;
}

int largest_power_of_two_at_most(int p) {
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}

at::Tensor adasum_tree_reference(const std::vector<at::Tensor>& buffers, const std::vector<int64_t>& numels) {
  if (buffers.empty()) throw Error("adasum_tree_reference: no buffers");
  const int p = static_cast<int>(buffers.size());
  const int q = largest_power_of_two_at_most(p);
  std::vector<at::Tensor> level;
  for (int i = 0; i < q; ++i) {
    level.push_back(i + q < p ? adasum(buffers[static_cast<size_t>(i)], buffers[static_cast<size_t>(i + q)], numels)
                              : buffers[static_cast<size_t>(i)].clone());
  }
  while (level.size() > 1) {
    std::vector<at::Tensor> next;
    for (size_t i = 0; i < level.size(); i += 2) next.push_back(adasum(level[i], level[i + 1], numels));
    level = std::move(next);
  }
  return level[0];
}

}  // namespace pacer
