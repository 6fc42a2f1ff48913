#pragma once
// Base class of the networks that workloads train. Unlike a plain torch::nn::Module, the dropout
// rate is an argument of forward (AlgoPerf's model_fn takes it per call, so a submission can tune
// it), and every parameter has a type that algorithms may use (e.g. no weight decay on biases).
// The module's buffers are AlgoPerf's model_state (e.g. batch-norm running statistics): updated by
// forward in training mode, read in evaluation mode, never touched by the optimizer.
//
//   class MyNet : public pacer::Network {
//     at::Tensor forward(const at::Tensor& x, double dropout_rate) override;
//     std::vector<pacer::ParamType> param_types() const override;
//   };
#include <torch/nn/module.h>

#include <string>
#include <vector>

#include "core/export.h"

namespace pacer {

enum class ParamType {
  weight,
  bias,
  conv_weight,
  layer_norm_scale,
  layer_norm_bias,
  batch_norm_scale,
  batch_norm_bias,
  embedding,
};
PACER_API const char* to_string(ParamType type);

class PACER_API Network : public torch::nn::Module {
 public:
  // Training or evaluation behaviour follows Module::is_training() (train()/eval()).
  virtual at::Tensor forward(const at::Tensor& inputs, double dropout_rate) = 0;
  // One entry per tensor of parameters(), in the same order.
  virtual std::vector<ParamType> param_types() const = 0;
};

}  // namespace pacer
