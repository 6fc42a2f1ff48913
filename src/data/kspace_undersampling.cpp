#include "data/kspace_undersampling.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/error.h"

namespace pacer {

at::Tensor kspace_column_mask(int64_t width, const KspaceMaskOptions& options, uint64_t seed) {
  if (width < 2 || options.acceleration < 1 || options.center_fraction <= 0.0 || options.center_fraction > 1.0)
    throw Error("kspace_column_mask: invalid width, acceleration or center fraction");
  const int64_t kept = std::max<int64_t>(1, std::llround(static_cast<double>(width) / options.acceleration));
  const int64_t center = std::min(kept, std::max<int64_t>(1, std::llround(width * options.center_fraction)));
  // Work in centred order (frequency 0 in the middle), then shift back to FFT order.
  std::vector<float> centred(static_cast<size_t>(width), 0.0f);
  const int64_t band_start = width / 2 - center / 2;
  for (int64_t i = 0; i < center; ++i) centred[static_cast<size_t>(band_start + i)] = 1.0f;
  std::vector<int64_t> others;
  for (int64_t i = 0; i < width; ++i)
    if (centred[static_cast<size_t>(i)] == 0.0f) others.push_back(i);
  std::mt19937_64 rng(seed);
  std::shuffle(others.begin(), others.end(), rng);
  for (int64_t i = 0; i < kept - center; ++i) centred[static_cast<size_t>(others[static_cast<size_t>(i)])] = 1.0f;
  // ifftshift: centred index c holds frequency c - width/2, stored at (c - width/2) mod width.
  std::vector<float> fft_order(static_cast<size_t>(width));
  for (int64_t c = 0; c < width; ++c)
    fft_order[static_cast<size_t>(((c - width / 2) % width + width) % width)] = centred[static_cast<size_t>(c)];
  return at::tensor(fft_order, at::kFloat);
}

at::Tensor zero_filled_reconstruction(const at::Tensor& images, const at::Tensor& column_mask) {
  if (images.dim() < 2 || images.size(-1) != column_mask.size(0))
    throw Error("zero_filled_reconstruction: the mask's width does not match the images'");
  at::Tensor kspace = at::fft_fft2(images.to(at::kFloat));
  at::Tensor undersampled = kspace * column_mask.to(images.device());
  return at::fft_ifft2(undersampled).abs().to(at::kFloat);
}

}  // namespace pacer
