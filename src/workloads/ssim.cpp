#include "workloads/ssim.h"

#include <ATen/ATen.h>

#include "core/error.h"

namespace pacer {

at::Tensor ssim_per_image(const at::Tensor& prediction, const at::Tensor& target) {
  constexpr int64_t kWindow = 7;
  constexpr double kK1 = 0.01, kK2 = 0.03;
  if (prediction.sizes() != target.sizes()) throw Error("ssim: prediction and target shapes differ");
  auto as_nchw = [](const at::Tensor& t) {
    if (t.dim() == 3) return t.unsqueeze(1);
    if (t.dim() == 4 && t.size(1) == 1) return t;
    throw Error("ssim: expected [N,H,W] or [N,1,H,W]");
  };
  at::Tensor x = as_nchw(prediction).to(at::kDouble);
  at::Tensor y = as_nchw(target).to(at::kDouble);
  if (x.size(2) < kWindow || x.size(3) < kWindow) throw Error("ssim: images smaller than the 7x7 window");
  const int64_t n = x.size(0);
  at::Tensor data_range = y.reshape({n, -1}).amax(1);
  data_range = at::where(data_range == 0, at::ones_like(data_range), data_range).view({n, 1, 1, 1});

  auto filter = [](const at::Tensor& t) { return at::avg_pool2d(t, {kWindow, kWindow}, {1, 1}); };
  const double points = static_cast<double>(kWindow * kWindow);
  const double cov_norm = points / (points - 1.0);
  at::Tensor ux = filter(x), uy = filter(y);
  at::Tensor vx = cov_norm * (filter(x * x) - ux * ux);
  at::Tensor vy = cov_norm * (filter(y * y) - uy * uy);
  at::Tensor vxy = cov_norm * (filter(x * y) - ux * uy);
  at::Tensor c1 = (kK1 * data_range).pow(2), c2 = (kK2 * data_range).pow(2);
  at::Tensor s = (2 * ux * uy + c1) * (2 * vxy + c2) / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
  return s.mean({1, 2, 3}).clamp(-1.0, 1.0).to(at::kFloat);
}

}  // namespace pacer
