#pragma once
// Steps of an update that compose with any rule, as optax's clip_by_global_norm and
// add_decayed_weights compose with its optimizers: each is a TensorRule with no state, run before
// the rule on the same parameters and gradients. TensorwiseAlgorithm runs them on the flat
// buffers (one op each over the model; a global norm is exact there): clipping first, then the
// recipe's transforms, then its rule. A built-in whose reference decays weights apart from its
// direction uses one of the two decays below; one that decays inside its own math keeps that
// there (LAMB, Shampoo and AdEMAMix add the decay to the direction they normalize, schedule-free
// at y, Adafactor after reading the pre-decay scale, SOAP after every step but its first, Muon
// at each group's own rate).
//
//   pacer::TensorwiseRecipe r = ...;
//   r.transforms = {pacer::decoupled_weight_decay()};      // AdamW's: p *= 1 - lr * weight_decay
//
//   pacer::GlobalNormClip clip(/*max_norm=*/1.0);          // or by hand, on the flat buffers
//   clip.step({params}, {grads}, lr);                       // clip.norm(): the norm before
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>

#include "algorithms/tensor_rule.h"
#include "core/export.h"
#include "core/hyperparameters.h"

namespace pacer {

// A transform's state is empty; loading a non-empty one names the first entry in an InputError.
class PACER_API StatelessTransform : public TensorRule {
 public:
  NamedTensors state() const override { return {}; }
  void load_state(const NamedTensors& state) override;
};

// Scales the gradients so their global L2 norm is at most max_norm (when max_norm > 0; the
// factor chosen on the device where scalars stay there); norm() is the norm before, measured
// whether or not it clips (the runner logs it as train/grad_norm).
class PACER_API GlobalNormClip final : public StatelessTransform {
 public:
  explicit GlobalNormClip(double max_norm) : max_norm_(max_norm) {}
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;
  const at::Tensor& norm() const { return norm_; }

 private:
  double max_norm_;
  at::Tensor norm_;
};

// L2 regularization, torch.optim.SGD's and Adam's weight_decay: grads += weight_decay * params.
class PACER_API CoupledWeightDecay final : public StatelessTransform {
 public:
  explicit CoupledWeightDecay(double weight_decay) : weight_decay_(weight_decay) {}
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;

 private:
  double weight_decay_;
};

// Decoupled weight decay, torch.optim.AdamW's (Loshchilov & Hutter): params *= 1 - lr * weight_decay.
class PACER_API DecoupledWeightDecay final : public StatelessTransform {
 public:
  explicit DecoupledWeightDecay(double weight_decay) : weight_decay_(weight_decay) {}
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override;

 private:
  double weight_decay_;
};

// A transform of a recipe, built from the resolved hyperparameters.
using TransformFactory = std::function<std::unique_ptr<TensorRule>(const Hyperparameters&)>;

// The two decays with the hyperparameter "weight_decay".
PACER_API TransformFactory coupled_weight_decay();
PACER_API TransformFactory decoupled_weight_decay();

}  // namespace pacer
