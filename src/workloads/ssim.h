#pragma once
// Structural similarity as AlgoPerf's fastMRI workload computes it (algorithmic_efficiency
// workloads/fastmri/ssim.py, a port of skimage's structural_similarity with the arguments of
// the fastMRI paper): 7x7 uniform window, k1 = 0.01, k2 = 0.03, sample covariances (scaled by
// 49/48), the mean of the SSIM map over the pixels whose whole window lies inside the image,
// data range = each target's maximum ("volume max"; 1 where it is 0), values clipped to [-1, 1].
// The reference filters a symmetrically padded image and crops the padding away; the crop keeps
// exactly the windows that never touch the padding, so a valid 7x7 average pool is the same.
//
//   at::Tensor s = pacer::ssim_per_image(reconstructions, targets);   // [N,1,H,W] -> [N]
#include <ATen/core/Tensor.h>

namespace pacer {

// prediction, target: [N, H, W] or [N, 1, H, W], H and W at least 7. Returns [N] (float).
at::Tensor ssim_per_image(const at::Tensor& prediction, const at::Tensor& target);

}  // namespace pacer
