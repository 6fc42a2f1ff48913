// LARS (You, Gitman and Ginsburg, 2017, "Large Batch Training of Convolutional Networks"):
// momentum SGD in which each layer's step is scaled by a trust ratio, the norm of its weights over
// the norm of its update, so every layer moves by about the same fraction of itself. The SDK's
// per-tensor path: the rule sees each parameter tensor with its type, and TensorwiseAlgorithm
// brings the gradient, clipping, the warmup + cosine schedule, dropout and label smoothing.
//
//   for each weight tensor w with gradient g:
//     trust = eta * ||w|| / (||g|| + weight_decay * ||w||)    (1 when either norm is 0)
//     v = momentum * v + lr_t * trust * (g + weight_decay * w)
//     w = w - v
//   biases and normalization scales: the same without the trust ratio and the weight decay, as
//   LARS implementations exclude them from the layer adaptation.
#include <pacer/algorithm.h>

#include <ATen/ATen.h>

namespace {

struct LarsOptions {
  double momentum = 0.9;
  double weight_decay = 1e-4;
  double trust_coefficient = 1e-3;  // eta
};

class LarsRule : public pacer::TensorRule {
 public:
  LarsRule(LarsOptions options, const std::vector<pacer::TensorInfo>& tensors)
      : options_(options), tensors_(tensors), velocity_(tensors.size()) {}

  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override {
    for (size_t i = 0; i < params.size(); ++i) {
      const at::Tensor& w = params[i];
      at::Tensor g = grads[i];
      double scale = lr;
      if (adapted(tensors_[i].type)) {
        const double w_norm = w.norm().item<double>(), g_norm = g.norm().item<double>();
        if (w_norm > 0.0 && g_norm > 0.0)
          scale *= options_.trust_coefficient * w_norm / (g_norm + options_.weight_decay * w_norm);
        if (options_.weight_decay != 0.0) g = g.add(w, options_.weight_decay);
      }
      if (!velocity_[i].defined()) velocity_[i] = at::zeros_like(w);
      velocity_[i].mul_(options_.momentum).add_(g, scale);
      w.sub_(velocity_[i]);
    }
  }

  // The velocities are all a resume needs: the step's learning rate comes from the schedule.
  pacer::NamedTensors state() const override {
    pacer::NamedTensors out;
    pacer::append_tensor_list(out, "velocity", velocity_);
    return out;
  }
  void load_state(const pacer::NamedTensors& state) override {
    for (const auto& [key, value] : state)
      if (!pacer::read_tensor_list(key, value, "velocity", velocity_))
        throw pacer::InputError("lars: unknown state entry '" + key + "'");
  }

 private:
  // Weights get the trust ratio and the weight decay; biases and norm parameters do not.
  static bool adapted(pacer::ParamType type) {
    return type == pacer::ParamType::weight || type == pacer::ParamType::conv_weight ||
           type == pacer::ParamType::embedding;
  }

  LarsOptions options_;
  std::vector<pacer::TensorInfo> tensors_;
  std::vector<at::Tensor> velocity_;
};

pacer::TensorwiseRecipe lars_recipe() {
  pacer::TensorwiseRecipe recipe;
  recipe.name = "lars";
  recipe.description = "LARS: momentum SGD with a per-layer trust ratio (You et al. 2017), warmup + cosine decay";
  // The rule's own hyperparameters; label_smoothing, dropout_rate and grad_clip are appended.
  recipe.hyperparameters = {
      pacer::hyperparameter("learning_rate").defaults_to(1.0).in(1e-4, 100.0).describe("peak global learning rate"),
      pacer::hyperparameter("momentum").defaults_to(0.9).in(0.0, 1.0).excluding_max().describe("momentum"),
      pacer::hyperparameter("weight_decay").defaults_to(1e-4).in(0.0, 1.0).describe("L2 weight decay of the weights"),
      pacer::hyperparameter("trust_coefficient").defaults_to(1e-3).in(1e-6, 1.0).describe("eta of the trust ratio"),
      pacer::hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 0.5).describe(
          "linear warmup, as a fraction of the step hint"),
  };
  recipe.make_rule = [](const pacer::Hyperparameters& hp, const std::vector<pacer::TensorInfo>& tensors,
                        int64_t /*step_hint*/) {
    LarsOptions options;
    options.momentum = hp.get("momentum");
    options.weight_decay = hp.get("weight_decay");
    options.trust_coefficient = hp.get("trust_coefficient");
    return std::make_unique<LarsRule>(options, tensors);
  };
  return recipe;
}

class Lars : public pacer::TensorwiseAlgorithm {
 public:
  Lars() : pacer::TensorwiseAlgorithm(lars_recipe()) {}
};

}  // namespace

PACER_PLUGIN(PACER_ALGORITHM("lars", Lars))
