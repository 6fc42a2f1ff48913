#include "workloads/reconstruction_workload.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "core/error.h"
#include "data/fashion_mnist.h"
#include "workloads/ssim.h"

namespace pacer {

FashionMnistReconstructionWorkload::FashionMnistReconstructionWorkload(WorkloadSpec spec, NetworkFactory factory)
    : Workload(std::move(spec)), factory_(std::move(factory)) {}

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
  train_ = build(data.train, 0);
  train_eval_ = {train_.inputs.narrow(0, 0, kEvalExamples), train_.targets.narrow(0, 0, kEvalExamples)};
  validation_ = build(data.validation, kEvalExamples);
  test_ = build(data.test, kEvalExamples);
  loaded_ = true;
}

std::shared_ptr<Network> FashionMnistReconstructionWorkload::init_model(uint64_t seed, const c10::Device& device) const {
  at::manual_seed(seed);
  auto network = factory_();
  network->to(device);
  return network;
}

LossOutput FashionMnistReconstructionWorkload::loss_fn(const at::Tensor& targets, const at::Tensor& outputs,
                                                       const at::Tensor& weights, double /*label_smoothing*/) const {
  LossOutput out;
  out.per_example = (outputs - targets).abs().flatten(1).mean(1);
  if (weights.defined()) {
    out.per_example = out.per_example * weights;
    out.n_valid = weights.sum();
  } else {
    out.n_valid = at::scalar_tensor(static_cast<double>(targets.size(0)), outputs.options());
  }
  out.summed = out.per_example.sum();
  return out;
}

const TensorDataset& FashionMnistReconstructionWorkload::dataset(EvalSplit split) const {
  if (!loaded_) throw Error(spec().name + ": data not loaded");
  switch (split) {
    case EvalSplit::train: return train_;
    case EvalSplit::validation: return validation_;
    case EvalSplit::test: return test_;
  }
  return train_;
}

Metrics FashionMnistReconstructionWorkload::evaluate(Network& network, EvalSplit split) const {
  const TensorDataset& data = split == EvalSplit::train ? train_eval_ : dataset(split);
  at::NoGradGuard no_grad;
  double loss_sum = 0.0, ssim_sum = 0.0;
  for (int64_t start = 0; start < data.size(); start += kEvalBatchSize) {
    const int64_t n = std::min(kEvalBatchSize, data.size() - start);
    at::Tensor x = data.inputs.narrow(0, start, n);
    at::Tensor y = data.targets.narrow(0, start, n);
    at::Tensor out = model_fn(network, x, ForwardMode::eval, 0.0);
    loss_sum += (out - y).abs().flatten(1).mean(1).sum().item<double>();
    ssim_sum += ssim_per_image(out, y).sum().item<double>();
  }
  const double n = static_cast<double>(data.size());
  return {{"ssim", ssim_sum / n}, {"loss", loss_sum / n}, {"num_examples", n}};
}

}  // namespace pacer
