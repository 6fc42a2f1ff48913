#pragma once
// Image reconstruction from undersampled k-space (the fastMRI analog) on Fashion-MNIST: the input
// is the zero-filled reconstruction of each image from a fixed column mask (4x acceleration,
// 8% low-frequency band, mask seed fixed per workload), the target is the image with pixels in
// [0, 1]. Loss: mean absolute error per image (fastMRI's L1). Metrics: ssim (the target metric,
// as AlgoPerf computes it), loss, num_examples. Label smoothing does not apply.
// Eval splits are subsets (kEvalExamples each) of Fashion-MNIST's validation and test splits and
// of the training set: a U-Net eval costs ~25x an MLP's per image.
#include "core/export.h"
#include "data/kspace_undersampling.h"
#include "workloads/in_memory_workload.h"

namespace pacer {

// Exported (PACER_API): the Python bridge tells the loss type by its type.
class PACER_API FashionMnistReconstructionWorkload : public InMemoryWorkload {
 public:
  using InMemoryWorkload::InMemoryWorkload;

  void load(const WorkloadContext& context) override;
  LossOutput loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const at::Tensor& weights,
                     double label_smoothing) const override;
  Metrics evaluate(Network& network, EvalSplit split) const override;

  static constexpr int64_t kEvalExamples = 2000;
  static constexpr int64_t kEvalBatchSize = 64;  // fastest per image on CPU (bench/speed/eval_batch_size.py)
  static constexpr uint64_t kMaskSeed = 7;
  static KspaceMaskOptions mask_options() { return {0.08, 4}; }
};

}  // namespace pacer
