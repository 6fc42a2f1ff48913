#include "catalog/workload_specs.h"

#include <deque>
#include <mutex>

#include "core/error.h"

namespace pacer {
namespace {

// ---- Declared options: what `--workload-option` may change. The defaults are the models' own
// (src/models/*.h); Workloads.DeclaredDefaultsAreTheModelsOwn keeps the two equal.
WorkloadOptionSpec choice_option(const std::string& name, const std::string& default_value,
                                 std::vector<std::string> choices, const std::string& description) {
  WorkloadOptionSpec o;
  o.name = name, o.kind = WorkloadOptionSpec::Kind::choice, o.default_value = default_value;
  o.choices = std::move(choices), o.description = description;
  return o;
}
WorkloadOptionSpec integer_option(const std::string& name, int64_t default_value, int64_t min, int64_t max,
                                  const std::string& description) {
  WorkloadOptionSpec o;
  o.name = name, o.kind = WorkloadOptionSpec::Kind::integer, o.default_value = std::to_string(default_value);
  o.min = min, o.max = max, o.description = description;
  return o;
}
WorkloadOptionSpec activation_option(const std::string& default_value) {
  return choice_option("activation", default_value, {"relu", "tanh", "gelu", "silu", "sigmoid", "leaky_relu"},
                       "activation function");
}
std::vector<WorkloadOptionSpec> mlp_options(const std::string& activation) {
  return {activation_option(activation), integer_option("width", 128, 1, 8192, "units of each hidden layer"),
          integer_option("depth", 2, 1, 16, "hidden layers")};
}
std::vector<WorkloadOptionSpec> cnn_options() {
  return {integer_option("width", 1024, 1, 16384, "units of the dense hidden layer"),
          integer_option("channels", 32, 1, 1024, "channels of the first convolution (the second: twice)")};
}
std::vector<WorkloadOptionSpec> resnet_options(const std::string& activation) {
  return {activation_option(activation), integer_option("width", 16, 1, 512, "channels of the first stage (then x2, x4)"),
          integer_option("depth", 1, 1, 8, "residual blocks per stage")};
}
std::vector<WorkloadOptionSpec> transformer_options(int64_t width, int64_t depth) {
  return {integer_option("width", width, 4, 4096, "model width (a multiple of the number of heads)"),
          integer_option("depth", depth, 1, 48, "transformer blocks")};
}

// A workload's spec by name, so that each number says what it is. Targets, budgets and step
// hints: set by `pacer targets` (docs/targets.md, records in docs/targets/), except where
// targets_source says otherwise.
//
//   workload("fmnist_mlp", images, "Fashion-MNIST, MLP").maximize("accuracy").targets(0.895, 0.8862)
//       .budget_sec(7).step_hint(2000).eval_period_sec(0.5).batch_size(256).options(mlp_options("relu"))
class SpecBuilder {
 public:
  // A new workload.
  SpecBuilder(const std::string& name, const std::string& modality, const std::string& description) {
    s_.name = name;
    s_.modality = modality;
    s_.description = description;
    s_.targets_source = "docs/targets.md#" + name;
  }
  // A variant: its base's budget, step hint, eval period, batch size and options, its own name,
  // description and targets (and options, when its model has another default).
  SpecBuilder(const WorkloadSpec& base, const std::string& name, const std::string& what) : s_(base) {
    s_.name = name;
    s_.description = "Variant of " + base.name + ": " + what;
    s_.base_workload = base.name;
    s_.targets_source = "docs/targets.md#" + name;
  }
  SpecBuilder& maximize(const std::string& metric) { return target_metric(metric, true); }
  SpecBuilder& minimize(const std::string& metric) { return target_metric(metric, false); }
  SpecBuilder& targets(double validation, double test) {
    s_.validation_target = validation;
    s_.test_target = test;
    return *this;
  }
  SpecBuilder& budget_sec(double seconds) {
    s_.time_budget = seconds;
    return *this;
  }
  SpecBuilder& step_hint(int64_t steps) {
    s_.step_hint = steps;
    return *this;
  }
  SpecBuilder& eval_period_sec(double seconds) {
    s_.eval_period_sec = seconds;
    return *this;
  }
  SpecBuilder& batch_size(int64_t examples) {
    s_.reference_batch_size = examples;
    return *this;
  }
  SpecBuilder& options(std::vector<WorkloadOptionSpec> options) {
    s_.options = std::move(options);
    return *this;
  }
  operator WorkloadSpec() const { return s_; }  // NOLINT(google-explicit-constructor): a builder is its spec

 private:
  SpecBuilder& target_metric(const std::string& metric, bool higher_is_better) {
    s_.target_metric = metric;
    s_.higher_is_better = higher_is_better;
    return *this;
  }
  WorkloadSpec s_;
};

SpecBuilder workload(const std::string& name, const std::string& modality, const std::string& description) {
  return SpecBuilder(name, modality, description);
}
SpecBuilder variant(const WorkloadSpec& base, const std::string& name, const std::string& what) {
  return SpecBuilder(base, name, what);
}

// What each kind of workload's evaluate() reports, so a goal on another metric is an input error.
std::vector<std::string> metrics_of(const std::string& modality) {
  if (modality == "image classification") return {"accuracy", "loss"};
  if (modality == "language modelling") return {"loss", "bits_per_byte", "perplexity", "accuracy"};
  if (modality == "image reconstruction") return {"ssim", "loss"};
  if (modality == "regression") return {"loss"};
  return {};
}

std::vector<WorkloadSpec> shipped_workloads() {
  std::vector<WorkloadSpec> r;
  const std::string images = "image classification";

  // Fashion-MNIST MLP and its variants.
  const WorkloadSpec mlp = workload("fmnist_mlp", images, "Fashion-MNIST, MLP 784-128-128-10, ReLU")
                               .maximize("accuracy").targets(0.895, 0.8862)
                               .budget_sec(7).step_hint(2000).eval_period_sec(0.5).batch_size(256)
                               .options(mlp_options("relu"));
  r.push_back(mlp);
  r.push_back(variant(mlp, "fmnist_mlp_tanh", "tanh activations").targets(0.8898, 0.8825).options(mlp_options("tanh")));
  r.push_back(variant(mlp, "fmnist_mlp_layernorm", "layer norm before each activation").targets(0.8929, 0.8862));

  // The simple CNN of Shallue et al.
  r.push_back(workload("fmnist_cnn", images,
                       "Fashion-MNIST, simple CNN (conv5x5/32, pool, conv5x5/64, pool, dense 1024, dense 10)")
                  .maximize("accuracy").targets(0.9119, 0.9073)
                  .budget_sec(173).step_hint(1000).eval_period_sec(20).batch_size(128)
                  .options(cnn_options()));

  // ResNet with batch normalization (AlgoPerf's ImageNet ResNet analog).
  const WorkloadSpec resnet =
      workload("fmnist_resnet", images, "Fashion-MNIST, ResNet (3x3 stem /2, basic blocks 16-32-64, batch norm, ReLU)")
          .maximize("accuracy").targets(0.8993, 0.89)
          .budget_sec(39).step_hint(800).eval_period_sec(10).batch_size(128)
          .options(resnet_options("relu"));
  r.push_back(resnet);
  r.push_back(variant(resnet, "fmnist_resnet_silu", "SiLU activations").targets(0.8940, 0.8880).options(resnet_options("silu")));
  r.push_back(variant(resnet, "fmnist_resnet_large_bn_init", "last batch norm of each block initialized to scale 8")
                  .targets(0.8743, 0.8654));

  // Vision transformer (AlgoPerf's ViT analog).
  const WorkloadSpec vit =
      workload("fmnist_vit", images, "Fashion-MNIST, ViT (7x7 patches, 16 tokens, width 64, 3 blocks, 4 heads, pre-LN)")
          .maximize("accuracy").targets(0.8561, 0.8473)
          .budget_sec(64).step_hint(800).eval_period_sec(10).batch_size(128)
          .options(transformer_options(64, 3));
  r.push_back(vit);
  r.push_back(variant(vit, "fmnist_vit_glu", "GLU MLP blocks").targets(0.8698, 0.8574));
  r.push_back(variant(vit, "fmnist_vit_post_ln", "post-layer-norm blocks").targets(0.8568, 0.8473));

  // Reconstruction from undersampled k-space (AlgoPerf's fastMRI analog).
  const WorkloadSpec recon =
      workload("fmnist_recon", "image reconstruction",
               "Fashion-MNIST from 4x undersampled k-space, U-Net 8-16-32 (instance norm, leaky ReLU), L1 loss")
          .maximize("ssim").targets(0.7360, 0.7352)
          .budget_sec(38).step_hint(800).eval_period_sec(10).batch_size(32)
          .options({activation_option("leaky_relu")});
  r.push_back(recon);
  r.push_back(variant(recon, "fmnist_recon_tanh", "tanh activations").targets(0.6352, 0.6328).options({activation_option("tanh")}));
  r.push_back(variant(recon, "fmnist_recon_layernorm", "layer norm instead of instance norm").targets(0.7787, 0.7774));

  // Byte-level language model on the fortunes corpus (AlgoPerf v1.0's LM analog).
  const WorkloadSpec lm = workload("fortunes_lm", "language modelling",
                                   "English fortunes, byte-level decoder-only transformer (context 64, width 64, "
                                   "2 blocks, 4 heads), cross-entropy per byte")
                              .minimize("loss").targets(2.3614, 2.3511)
                              .budget_sec(50).step_hint(600).eval_period_sec(15).batch_size(32)
                              .options(transformer_options(64, 2));
  r.push_back(lm);
  r.push_back(variant(lm, "fortunes_lm_glu", "GLU MLP blocks").targets(2.2588, 2.2469));
  r.push_back(variant(lm, "fortunes_lm_rmsnorm", "RMSNorm instead of layer norm").targets(2.3697, 2.3576));

  // Teacher-student linear regression: seconds to tune, for tests and quick checks.
  r.push_back(workload("synthetic_regression", "regression",
                       "Teacher-student linear regression, 32 inputs, noise std 0.5 (loss floor 0.25)")
                  .minimize("loss").targets(0.2449, 0.2597)
                  .budget_sec(1).step_hint(400).eval_period_sec(0.05).batch_size(64));
  for (auto& s : r) s.metrics = metrics_of(s.modality);
  return r;
}

// A deque: registering another workload never moves the ones handed out by reference.
struct Specs {
  Specs() {
    for (auto& s : shipped_workloads()) entries.push_back(std::move(s));
  }
  std::mutex mutex;
  std::deque<WorkloadSpec> entries;
};

Specs& specs() {
  static Specs s;  // built on first use, so registration never races static initialization
  return s;
}

}  // namespace

void register_workload_spec(WorkloadSpec spec) {
  if (spec.name.empty()) throw Error("register_workload: empty name");
  Specs& s = specs();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto& e : s.entries)
    if (e.name == spec.name) throw Error("register_workload: the name '" + spec.name + "' is already taken");
  s.entries.push_back(std::move(spec));
}

std::vector<WorkloadSpec> workload_specs() {
  Specs& s = specs();
  std::lock_guard<std::mutex> lock(s.mutex);
  return {s.entries.begin(), s.entries.end()};
}

const WorkloadSpec& workload_spec(const std::string& name) {
  Specs& s = specs();
  std::string valid;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (const auto& e : s.entries) {
      if (e.name == name) return e;
      valid += (valid.empty() ? "" : ", ") + e.name;
    }
  }
  throw InputError("unknown workload '" + name + "' (valid: " + valid + ")");
}

std::vector<std::string> workload_variants(const std::string& base) {
  std::vector<std::string> names;
  for (const auto& s : workload_specs())
    if (s.base_workload == base) names.push_back(s.name);
  return names;
}

}  // namespace pacer
