#include "workloads/registry.h"

#include <deque>
#include <functional>
#include <mutex>
#include <type_traits>

#include "core/error.h"
#include "models/activation.h"
#include "models/char_transformer.h"
#include "models/mlp.h"
#include "models/resnet.h"
#include "models/simple_cnn.h"
#include "models/unet.h"
#include "models/vision_transformer.h"
#include "workloads/classification_workload.h"
#include "workloads/language_model_workload.h"
#include "workloads/reconstruction_workload.h"
#include "workloads/regression_workload.h"

namespace pacer {
namespace {

// A built-in factory: the workload from its spec and the given model options (validated).
using ConfigurableFactory = std::function<std::unique_ptr<Workload>(const WorkloadSpec&, const WorkloadOptions&)>;

// A workload is registered once: its spec (plain data, listed without torch) and its factory.
struct Registration {
  WorkloadSpec spec;
  ConfigurableFactory make;
};

// ---- Declared options and how each applies to a model's options struct.
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
WorkloadOptionSpec activation_option(Activation current) {
  return choice_option("activation", to_string(current), {"relu", "tanh", "gelu", "silu", "sigmoid", "leaky_relu"},
                       "activation function");
}
int64_t integer_of(const WorkloadOptions& o, const std::string& key, int64_t current) {
  const auto it = o.find(key);
  return it == o.end() ? current : std::stoll(it->second);  // validated before
}
Activation activation_of(const WorkloadOptions& o, Activation current) {
  const auto it = o.find("activation");
  return it == o.end() ? current : activation_from_string(it->second);
}

std::vector<WorkloadOptionSpec> declare(const MlpOptions& m) {
  return {activation_option(m.activation),
          integer_option("width", m.hidden.empty() ? 128 : m.hidden[0], 1, 8192, "units of each hidden layer"),
          integer_option("depth", static_cast<int64_t>(m.hidden.size()), 1, 16, "hidden layers")};
}
MlpOptions apply(MlpOptions m, const WorkloadOptions& o) {
  m.activation = activation_of(o, m.activation);
  const int64_t width = integer_of(o, "width", m.hidden.empty() ? 128 : m.hidden[0]);
  m.hidden.assign(static_cast<size_t>(integer_of(o, "depth", static_cast<int64_t>(m.hidden.size()))), width);
  return m;
}
std::vector<WorkloadOptionSpec> declare(const SimpleCnnOptions& m) {
  return {integer_option("width", m.dense_size, 1, 16384, "units of the dense hidden layer"),
          integer_option("channels", m.conv1_channels, 1, 1024, "channels of the first convolution (the second: twice)")};
}
SimpleCnnOptions apply(SimpleCnnOptions m, const WorkloadOptions& o) {
  m.dense_size = integer_of(o, "width", m.dense_size);
  m.conv1_channels = integer_of(o, "channels", m.conv1_channels);
  m.conv2_channels = 2 * m.conv1_channels;
  return m;
}
std::vector<WorkloadOptionSpec> declare(const ResNetOptions& m) {
  return {activation_option(m.activation),
          integer_option("width", m.widths[0], 1, 512, "channels of the first stage (then x2, x4)"),
          integer_option("depth", m.blocks_per_stage, 1, 8, "residual blocks per stage")};
}
ResNetOptions apply(ResNetOptions m, const WorkloadOptions& o) {
  m.activation = activation_of(o, m.activation);
  const int64_t w = integer_of(o, "width", m.widths[0]);
  m.widths = {w, 2 * w, 4 * w};
  m.blocks_per_stage = integer_of(o, "depth", m.blocks_per_stage);
  return m;
}
std::vector<WorkloadOptionSpec> declare(const TransformerBlockOptions& b, int64_t depth) {
  return {integer_option("width", b.dim, 4, 4096, "model width (a multiple of the number of heads)"),
          integer_option("depth", depth, 1, 48, "transformer blocks")};
}
TransformerBlockOptions apply_block(TransformerBlockOptions b, const WorkloadOptions& o, const std::string& workload) {
  const int64_t width = integer_of(o, "width", b.dim);
  if (width % b.heads != 0) {
    throw InputError("workload '" + workload + "': option width=" + std::to_string(width) + " is not a multiple of the " +
                     std::to_string(b.heads) + " heads");
  }
  b.mlp_dim = b.mlp_dim * width / b.dim;  // keep the MLP ratio
  b.dim = width;
  return b;
}
std::vector<WorkloadOptionSpec> declare(const VisionTransformerOptions& m) { return declare(m.block, m.depth); }
std::vector<WorkloadOptionSpec> declare(const CharTransformerOptions& m) { return declare(m.block, m.depth); }
std::vector<WorkloadOptionSpec> declare(const UNetOptions& m) { return {activation_option(m.activation)}; }
UNetOptions apply(UNetOptions m, const WorkloadOptions& o) {
  m.activation = activation_of(o, m.activation);
  return m;
}

template <typename Net, typename Options>
ConfigurableFactory image_classifier(Options options, int64_t eval_batch_size = FashionMnistWorkload::kEvalBatchSize) {
  return [options, eval_batch_size](const WorkloadSpec& spec, const WorkloadOptions& given) {
    Options configured = options;
    if constexpr (std::is_same_v<Options, VisionTransformerOptions>) {
      configured.block = apply_block(options.block, given, spec.name);
      configured.depth = integer_of(given, "depth", options.depth);
    } else {
      configured = apply(options, given);
    }
    return std::make_unique<FashionMnistWorkload>(spec, [configured] { return std::make_shared<Net>(configured); },
                                                  eval_batch_size);
  };
}
// The registration of a model-backed workload: its options declared from the model's own.
template <typename Options>
Registration with_options(WorkloadSpec spec, const Options& model, ConfigurableFactory make) {
  spec.options = declare(model);
  return {std::move(spec), std::move(make)};
}
// Eval batch sizes of the ResNet and ViT: measured fastest per image on CPU (bench/eval_batch_size.py).
constexpr int64_t kResNetEvalBatch = 64, kVitEvalBatch = 64;

// Targets, budgets and step hints: set by `pacer targets` (docs/targets.md, records in
// docs/targets/), except where targets_source says otherwise.
WorkloadSpec spec(const std::string& name, const std::string& modality, const std::string& description,
                  const std::string& metric, bool higher_is_better, double validation_target, double test_target,
                  double budget_s, int64_t step_hint, double eval_period_s, int64_t batch_size) {
  WorkloadSpec s;
  s.name = name;
  s.modality = modality;
  s.description = description;
  s.target_metric = metric;
  s.higher_is_better = higher_is_better;
  s.validation_target = validation_target;
  s.test_target = test_target;
  s.max_runtime_sec = budget_s;
  s.step_hint = step_hint;
  s.eval_period_sec = eval_period_s;
  s.reference_batch_size = batch_size;
  s.targets_source = "docs/targets.md#" + name;
  return s;
}

WorkloadSpec variant(const WorkloadSpec& base, const std::string& name, const std::string& what,
                     double validation_target, double test_target) {
  WorkloadSpec s = base;
  s.name = name;
  s.description = "Variant of " + base.name + ": " + what;
  s.base_workload = base.name;
  s.validation_target = validation_target;
  s.test_target = test_target;
  s.targets_source = "docs/targets.md#" + name;
  return s;
}

std::vector<Registration> build_catalog() {
  std::vector<Registration> r;
  const std::string images = "image classification";

  // Fashion-MNIST MLP and its variants.
  const WorkloadSpec mlp = spec("fmnist_mlp", images, "Fashion-MNIST, MLP 784-128-128-10, ReLU", "accuracy", true,
                                0.895, 0.8862, 7, 2000, 0.5, 256);
  r.push_back(with_options(mlp, MlpOptions{}, image_classifier<Mlp>(MlpOptions{})));
  MlpOptions tanh_mlp;
  tanh_mlp.activation = Activation::tanh;
  r.push_back(with_options(variant(mlp, "fmnist_mlp_tanh", "tanh activations", 0.8898, 0.8825), tanh_mlp,
                           image_classifier<Mlp>(tanh_mlp)));
  MlpOptions ln_mlp;
  ln_mlp.layer_norm = true;
  r.push_back(with_options(variant(mlp, "fmnist_mlp_layernorm", "layer norm before each activation", 0.8929, 0.8862),
                           ln_mlp, image_classifier<Mlp>(ln_mlp)));

  // The simple CNN of Shallue et al.
  const WorkloadSpec cnn = spec("fmnist_cnn", images,
                                "Fashion-MNIST, simple CNN (conv5x5/32, pool, conv5x5/64, pool, dense 1024, dense 10)",
                                "accuracy", true, 0.9119, 0.9073, 173, 1000, 20, 128);
  r.push_back(with_options(cnn, SimpleCnnOptions{}, image_classifier<SimpleCnn>(SimpleCnnOptions{})));

  // ResNet with batch normalization (AlgoPerf's ImageNet ResNet analog).
  const WorkloadSpec resnet = spec("fmnist_resnet", images,
                                   "Fashion-MNIST, ResNet (3x3 stem /2, basic blocks 16-32-64, batch norm, ReLU)",
                                   "accuracy", true, 0.8993, 0.89, 39, 800, 10, 128);
  r.push_back(with_options(resnet, ResNetOptions{}, image_classifier<ResNet>(ResNetOptions{}, kResNetEvalBatch)));
  ResNetOptions silu;
  silu.activation = Activation::silu;
  r.push_back(with_options(variant(resnet, "fmnist_resnet_silu", "SiLU activations", 0.8940, 0.8880), silu,
                           image_classifier<ResNet>(silu, kResNetEvalBatch)));
  ResNetOptions large_bn;
  large_bn.last_bn_scale_init = 8.0;
  r.push_back(with_options(variant(resnet, "fmnist_resnet_large_bn_init",
                                   "last batch norm of each block initialized to scale 8", 0.8743, 0.8654),
                           large_bn, image_classifier<ResNet>(large_bn, kResNetEvalBatch)));

  // Vision transformer (AlgoPerf's ViT analog).
  const WorkloadSpec vit = spec("fmnist_vit", images,
                                "Fashion-MNIST, ViT (7x7 patches, 16 tokens, width 64, 3 blocks, 4 heads, pre-LN)",
                                "accuracy", true, 0.8561, 0.8473, 64, 800, 10, 128);
  r.push_back(with_options(vit, VisionTransformerOptions{},
                           image_classifier<VisionTransformer>(VisionTransformerOptions{}, kVitEvalBatch)));
  VisionTransformerOptions glu_vit;
  glu_vit.block.glu = true;
  r.push_back(with_options(variant(vit, "fmnist_vit_glu", "GLU MLP blocks", 0.8698, 0.8574), glu_vit,
                           image_classifier<VisionTransformer>(glu_vit, kVitEvalBatch)));
  VisionTransformerOptions post_ln;
  post_ln.block.post_norm = true;
  r.push_back(with_options(variant(vit, "fmnist_vit_post_ln", "post-layer-norm blocks", 0.8568, 0.8473), post_ln,
                           image_classifier<VisionTransformer>(post_ln, kVitEvalBatch)));

  // Reconstruction from undersampled k-space (AlgoPerf's fastMRI analog).
  const WorkloadSpec recon =
      spec("fmnist_recon", "image reconstruction",
           "Fashion-MNIST from 4x undersampled k-space, U-Net 8-16-32 (instance norm, leaky ReLU), L1 loss", "ssim",
           true, 0.7360, 0.7352, 38, 800, 10, 32);
  auto recon_factory = [](UNetOptions options) -> ConfigurableFactory {
    return [options](const WorkloadSpec& s, const WorkloadOptions& given) {
      const UNetOptions configured = apply(options, given);
      return std::make_unique<FashionMnistReconstructionWorkload>(s, [configured] { return std::make_shared<UNet>(configured); });
    };
  };
  r.push_back(with_options(recon, UNetOptions{}, recon_factory(UNetOptions{})));
  UNetOptions tanh_unet;
  tanh_unet.activation = Activation::tanh;
  r.push_back(with_options(variant(recon, "fmnist_recon_tanh", "tanh activations", 0.6352, 0.6328), tanh_unet,
                           recon_factory(tanh_unet)));
  UNetOptions ln_unet;
  ln_unet.norm = UNetNorm::layer_norm;
  r.push_back(with_options(variant(recon, "fmnist_recon_layernorm", "layer norm instead of instance norm", 0.7787, 0.7774),
                           ln_unet, recon_factory(ln_unet)));

  // Byte-level language model on the fortunes corpus (AlgoPerf v1.0's LM analog).
  const WorkloadSpec lm = spec("fortunes_lm", "language modelling",
                               "English fortunes, byte-level decoder-only transformer (context 64, width 64, 2 blocks, "
                               "4 heads), cross-entropy per byte",
                               "loss", false, 2.3614, 2.3511, 50, 600, 15, 32);
  auto lm_factory = [](CharTransformerOptions options) -> ConfigurableFactory {
    return [options](const WorkloadSpec& s, const WorkloadOptions& given) {
      CharTransformerOptions configured = options;
      configured.block = apply_block(options.block, given, s.name);
      configured.depth = integer_of(given, "depth", options.depth);
      return std::make_unique<FortunesLanguageModelWorkload>(
          s, configured.context, [configured] { return std::make_shared<CharTransformer>(configured); });
    };
  };
  r.push_back(with_options(lm, CharTransformerOptions{}, lm_factory(CharTransformerOptions{})));
  CharTransformerOptions glu_lm;
  glu_lm.block.glu = true;
  r.push_back(with_options(variant(lm, "fortunes_lm_glu", "GLU MLP blocks", 2.2588, 2.2469), glu_lm, lm_factory(glu_lm)));
  CharTransformerOptions rms_lm;
  rms_lm.block.norm = NormKind::rms_norm;
  r.push_back(with_options(variant(lm, "fortunes_lm_rmsnorm", "RMSNorm instead of layer norm", 2.3697, 2.3576), rms_lm,
                           lm_factory(rms_lm)));

  // Teacher-student linear regression: seconds to tune, for tests and quick checks.
  r.push_back({spec("synthetic_regression", "regression",
                    "Teacher-student linear regression, 32 inputs, noise std 0.5 (loss floor 0.25)", "loss", false,
                    0.2449, 0.2597, 1, 400, 0.05, 64),
               [](const WorkloadSpec& s, const WorkloadOptions&) {
                 return std::make_unique<SyntheticRegressionWorkload>(s, SyntheticRegressionOptions{});
               }});
  // What each kind of workload's evaluate() reports, so a goal on another metric is an input error.
  for (auto& entry : r) {
    const std::string& m = entry.spec.modality;
    if (m == "image classification") entry.spec.metrics = {"accuracy", "loss"};
    else if (m == "language modelling") entry.spec.metrics = {"loss", "bits_per_byte", "perplexity", "accuracy"};
    else if (m == "image reconstruction") entry.spec.metrics = {"ssim", "loss"};
    else if (m == "regression") entry.spec.metrics = {"loss"};
  }
  return r;
}

// A deque: registering another workload never moves the ones handed out by reference.
struct Catalog {
  Catalog() {
    for (auto& r : build_catalog()) entries.push_back(std::move(r));
  }
  std::mutex mutex;
  std::deque<Registration> entries;
};

Catalog& catalog() {
  static Catalog c;  // built on first use, so registration never races static initialization
  return c;
}

std::vector<Registration> snapshot() {
  Catalog& c = catalog();
  std::lock_guard<std::mutex> lock(c.mutex);
  return {c.entries.begin(), c.entries.end()};
}

std::string valid_names() {
  std::string names;
  for (const auto& r : snapshot()) names += (names.empty() ? "" : ", ") + r.spec.name;
  return names;
}

const Registration& registration(const std::string& name) {
  {
    Catalog& c = catalog();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (const auto& r : c.entries)
      if (r.spec.name == name) return r;
  }
  throw InputError("unknown workload '" + name + "' (valid: " + valid_names() + ")");
}

}  // namespace

void register_workload(WorkloadSpec spec, WorkloadFactory factory) {
  if (spec.name.empty()) throw Error("register_workload: empty name");
  if (!factory) throw Error("register_workload: '" + spec.name + "' has no factory");
  Catalog& c = catalog();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (const auto& r : c.entries)
    if (r.spec.name == spec.name) throw Error("register_workload: the name '" + spec.name + "' is already taken");
  c.entries.push_back({std::move(spec), [factory](const WorkloadSpec& s, const WorkloadOptions&) { return factory(s); }});
}

std::vector<WorkloadSpec> workload_specs() {
  std::vector<WorkloadSpec> specs;
  for (const auto& r : snapshot()) specs.push_back(r.spec);
  return specs;
}

const WorkloadSpec& workload_spec(const std::string& name) { return registration(name).spec; }

std::vector<std::string> workload_variants(const std::string& base) {
  std::vector<std::string> names;
  for (const auto& r : snapshot())
    if (r.spec.base_workload == base) names.push_back(r.spec.name);
  return names;
}

std::unique_ptr<Workload> create_workload(const std::string& name, const WorkloadOptions& options) {
  const Registration& r = registration(name);
  r.spec.validate_options(options);
  if (options.empty()) return r.make(r.spec, options);
  WorkloadSpec configured = r.spec;  // says what it is in logs and listings
  configured.description += " [options: " + to_string(options) + "]";
  return r.make(configured, options);
}

}  // namespace pacer
