#pragma once
// The synthetic workload: teacher-student linear regression (data/synthetic_regression.h) with a
// linear student and mean squared error. Trains to target in about a second on one core; the
// best achievable validation loss is about the noise variance.
#include "core/export.h"
#include "data/synthetic_regression.h"
#include "workloads/workload.h"

namespace pacer {

// Exported (PACER_API): the Python bridge tells the loss type by its type.
class PACER_API SyntheticRegressionWorkload : public Workload {
 public:
  SyntheticRegressionWorkload(WorkloadSpec spec, SyntheticRegressionOptions options);

  void load(const WorkloadContext& context) override;
  std::shared_ptr<Network> init_model(uint64_t seed, const c10::Device& device) const override;
  LossOutput loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const at::Tensor& weights,
                     double label_smoothing) const override;
  const TensorDataset& dataset(EvalSplit split) const override;
  Metrics evaluate(Network& network, EvalSplit split) const override;

 private:
  SyntheticRegressionOptions options_;
  SyntheticRegressionData data_;
  TensorDataset train_eval_;
  bool loaded_ = false;
};

}  // namespace pacer
