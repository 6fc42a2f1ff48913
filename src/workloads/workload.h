#pragma once
// The Workload interface, after AlgoPerf's: a dataset, a model initialized from a seed, a forward
// function with mode and dropout rate, a loss with label smoothing and example weights, evals on
// train/validation/test splits, and the fixed spec (targets, budget, step hint, eval period).
//
//   auto workload = pacer::create_workload("fmnist_mlp");
//   workload->load({.data_dir = "", .device = at::kCPU});     // untimed input-pipeline set-up
//   auto net = workload->init_model(seed, at::kCPU);
//   at::Tensor logits = workload->model_fn(*net, batch.inputs, pacer::ForwardMode::train, 0.1);
//   auto loss = workload->loss_fn(batch.targets, logits, {}, 0.1);
//   loss.mean().backward();
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <map>
#include <memory>
#include <string>

#include "core/eval_record.h"
#include "core/export.h"
#include "data/tensor_dataset.h"
#include "models/network.h"
#include "catalog/workload_spec.h"

namespace pacer {

enum class ForwardMode { train, eval };

struct PACER_API WorkloadContext {
  std::string data_dir;  // empty: $PACER_DATA_DIR or the built-in default
  c10::Device device = c10::Device(c10::DeviceType::CPU);
};

struct PACER_API LossOutput {
  at::Tensor summed;       // scalar: sum of per-example losses times weights
  at::Tensor n_valid;      // scalar: sum of weights (number of examples without weights)
  at::Tensor per_example;  // [batch]
  at::Tensor mean() const { return summed / n_valid; }
};

// The LossOutput of per-example losses [batch] with optional example weights (undefined: all 1).
PACER_API LossOutput weighted_loss(at::Tensor per_example, const at::Tensor& weights);

class PACER_API Workload {
 public:
  explicit Workload(WorkloadSpec spec) : spec_(std::move(spec)) {}
  virtual ~Workload() = default;

  const WorkloadSpec& spec() const { return spec_; }

  // Builds the datasets on the device (untimed). Must be called before anything below.
  virtual void load(const WorkloadContext& context) = 0;
  virtual std::shared_ptr<Network> init_model(uint64_t seed, const c10::Device& device) const = 0;
  // Sets train/eval mode and runs the network.
  at::Tensor model_fn(Network& network, const at::Tensor& inputs, ForwardMode mode, double dropout_rate) const;
  // No regularization terms; `weights` may be undefined.
  virtual LossOutput loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const at::Tensor& weights,
                             double label_smoothing) const = 0;
  virtual const TensorDataset& dataset(EvalSplit split) const = 0;
  // Metrics on a split, without gradients, in eval mode: includes the target metric, "loss" and
  // "num_examples". The train split is a fixed subset of the training set.
  virtual Metrics evaluate(Network& network, EvalSplit split) const = 0;

 private:
  WorkloadSpec spec_;
};

}  // namespace pacer
