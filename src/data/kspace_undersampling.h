#pragma once
// Simulated accelerated MRI on images (the fastMRI analog): the 2-D Fourier transform of each
// image is undersampled by a fixed column mask (every row of k-space keeps the same columns, as
// Cartesian phase-encoding lines), and the network input is the magnitude of the zero-filled
// inverse transform. The mask keeps a fully sampled band of low frequencies plus random columns,
// as fastMRI's RandomMaskFunc (center fraction 0.08, 4x acceleration) does.
//
//   at::Tensor mask = pacer::kspace_column_mask(28, {.center_fraction = 0.08, .acceleration = 4}, 7);
//   at::Tensor inputs = pacer::zero_filled_reconstruction(images /* [N,1,28,28] */, mask);
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace pacer {

struct KspaceMaskOptions {
  double center_fraction = 0.08;
  int64_t acceleration = 4;
};

// A [width] float mask of 0/1 in unshifted FFT order (frequency 0 at index 0). Deterministic in
// `seed`; the number of kept columns is round(width / acceleration), the low-frequency band
// round(width * center_fraction) (at least 1) of them.
at::Tensor kspace_column_mask(int64_t width, const KspaceMaskOptions& options, uint64_t seed);

// |ifft2(fft2(images) * mask)| for images [..., H, W] and a [W] mask; same shape, float.
at::Tensor zero_filled_reconstruction(const at::Tensor& images, const at::Tensor& column_mask);

}  // namespace pacer
