#include "workloads/reconstruction_workload.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "core/error.h"
#include "data/fashion_mnist.h"
#include "workloads/ssim.h"

namespace pacer {

void FashionMnistReconstructionWorkload::load(const WorkloadContext& context) {
  const auto& data = load_fashion_mnist(resolve_data_dir(context.data_dir));
  const at::Tensor mask = kspace_column_mask(28, mask_options(), kMaskSeed);
  auto build = [&](const TensorDataset& d, int64_t limit) {
    const int64_t n = limit > 0 ? std::min(limit, d.size()) : d.size();
    at::NoGradGuard no_grad;
    // Back to pixels in [0, 1]: the loader normalized them with the training statistics.
    at::Tensor images = d.inputs.narrow(0, 0, n) * data.pixel_std + data.pixel_mean;
    at::Tensor inputs = zero_filled_reconstruction(images, mask);
    return TensorDataset{inputs.contiguous().to(context.device), images.contiguous().to(context.device)};
  };
  TensorDataset train = build(data.train, 0);
  TensorDataset train_eval{train.inputs.narrow(0, 0, kEvalExamples), train.targets.narrow(0, 0, kEvalExamples)};
  set_splits(train, train_eval, build(data.validation, kEvalExamples), build(data.test, kEvalExamples));
}

LossOutput FashionMnistReconstructionWorkload::loss_fn(const at::Tensor& targets, const at::Tensor& outputs,
                                                       const at::Tensor& weights, double /*label_smoothing*/) const {
  return weighted_loss((outputs - targets).abs().flatten(1).mean(1), weights);
}

Metrics FashionMnistReconstructionWorkload::evaluate(Network& network, EvalSplit split) const {
  double loss_sum = 0.0, ssim_sum = 0.0;
  for_each_eval_batch(network, split, kEvalBatchSize, [&](const at::Tensor& out, const at::Tensor& y) {
    loss_sum += (out - y).abs().flatten(1).mean(1).sum().item<double>();
    ssim_sum += ssim_per_image(out, y).sum().item<double>();
  });
  const double n = static_cast<double>(eval_split(split).size());
  return {{"ssim", ssim_sum / n}, {"loss", loss_sum / n}, {"num_examples", n}};
}

}  // namespace pacer
