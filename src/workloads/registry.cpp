#include "workloads/registry.h"

#include <deque>
#include <functional>
#include <mutex>

#include "core/error.h"
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

// A workload is registered once: its spec (plain data, listed without torch) and its factory.
struct Registration {
  WorkloadSpec spec;
  WorkloadFactory make;
};

template <typename Net, typename Options>
std::function<std::unique_ptr<Workload>(const WorkloadSpec&)> image_classifier(
    Options options, int64_t eval_batch_size = FashionMnistWorkload::kEvalBatchSize) {
  return [options, eval_batch_size](const WorkloadSpec& spec) {
    return std::make_unique<FashionMnistWorkload>(spec, [options] { return std::make_shared<Net>(options); },
                                                  eval_batch_size);
  };
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
                                0.8957, 0.8879, 10, 2000, 0.5, 256);
  r.push_back({mlp, image_classifier<Mlp>(MlpOptions{})});
  MlpOptions tanh_mlp;
  tanh_mlp.activation = Activation::tanh;
  r.push_back({variant(mlp, "fmnist_mlp_tanh", "tanh activations", 0.8908, 0.8842), image_classifier<Mlp>(tanh_mlp)});
  MlpOptions ln_mlp;
  ln_mlp.layer_norm = true;
  r.push_back({variant(mlp, "fmnist_mlp_layernorm", "layer norm before each activation", 0.8901, 0.8856),
               image_classifier<Mlp>(ln_mlp)});

  // The simple CNN of Shallue et al.
  const WorkloadSpec cnn = spec("fmnist_cnn", images,
                                "Fashion-MNIST, simple CNN (conv5x5/32, pool, conv5x5/64, pool, dense 1024, dense 10)",
                                "accuracy", true, 0.9161, 0.9107, 240, 1000, 20, 128);
  r.push_back({cnn, image_classifier<SimpleCnn>(SimpleCnnOptions{})});

  // ResNet with batch normalization (AlgoPerf's ImageNet ResNet analog).
  const WorkloadSpec resnet = spec("fmnist_resnet", images,
                                   "Fashion-MNIST, ResNet (3x3 stem /2, basic blocks 16-32-64, batch norm, ReLU)",
                                   "accuracy", true, 0.8993, 0.89, 39, 800, 10, 128);
  r.push_back({resnet, image_classifier<ResNet>(ResNetOptions{}, kResNetEvalBatch)});
  ResNetOptions silu;
  silu.activation = Activation::silu;
  r.push_back({variant(resnet, "fmnist_resnet_silu", "SiLU activations", 0.8940, 0.8880), image_classifier<ResNet>(silu, kResNetEvalBatch)});
  ResNetOptions large_bn;
  large_bn.last_bn_scale_init = 8.0;
  r.push_back({variant(resnet, "fmnist_resnet_large_bn_init", "last batch norm of each block initialized to scale 8", 0.8743,
                       0.8654),
               image_classifier<ResNet>(large_bn, kResNetEvalBatch)});

  // Vision transformer (AlgoPerf's ViT analog).
  const WorkloadSpec vit = spec("fmnist_vit", images,
                                "Fashion-MNIST, ViT (7x7 patches, 16 tokens, width 64, 3 blocks, 4 heads, pre-LN)",
                                "accuracy", true, 0.8561, 0.8473, 64, 800, 10, 128);
  r.push_back({vit, image_classifier<VisionTransformer>(VisionTransformerOptions{}, kVitEvalBatch)});
  VisionTransformerOptions glu_vit;
  glu_vit.block.glu = true;
  r.push_back({variant(vit, "fmnist_vit_glu", "GLU MLP blocks", 0.8698, 0.8574), image_classifier<VisionTransformer>(glu_vit, kVitEvalBatch)});
  VisionTransformerOptions post_ln;
  post_ln.block.post_norm = true;
  r.push_back({variant(vit, "fmnist_vit_post_ln", "post-layer-norm blocks", 0.8568, 0.8473),
               image_classifier<VisionTransformer>(post_ln, kVitEvalBatch)});

  // Reconstruction from undersampled k-space (AlgoPerf's fastMRI analog).
  const WorkloadSpec recon =
      spec("fmnist_recon", "image reconstruction",
           "Fashion-MNIST from 4x undersampled k-space, U-Net 8-16-32 (instance norm, leaky ReLU), L1 loss", "ssim",
           true, 0.7360, 0.7352, 38, 800, 10, 32);
  auto recon_factory = [](UNetOptions options) {
    return [options](const WorkloadSpec& s) {
      return std::make_unique<FashionMnistReconstructionWorkload>(s, [options] { return std::make_shared<UNet>(options); });
    };
  };
  r.push_back({recon, recon_factory(UNetOptions{})});
  UNetOptions tanh_unet;
  tanh_unet.activation = Activation::tanh;
  r.push_back({variant(recon, "fmnist_recon_tanh", "tanh activations", 0.6352, 0.6328), recon_factory(tanh_unet)});
  UNetOptions ln_unet;
  ln_unet.norm = UNetNorm::layer_norm;
  r.push_back({variant(recon, "fmnist_recon_layernorm", "layer norm instead of instance norm", 0.7787, 0.7774),
               recon_factory(ln_unet)});

  // Byte-level language model on the fortunes corpus (AlgoPerf v1.0's LM analog).
  const WorkloadSpec lm = spec("fortunes_lm", "language modelling",
                               "English fortunes, byte-level decoder-only transformer (context 64, width 64, 2 blocks, "
                               "4 heads), cross-entropy per byte",
                               "loss", false, 2.3614, 2.3511, 50, 600, 15, 32);
  auto lm_factory = [](CharTransformerOptions options) {
    return [options](const WorkloadSpec& s) {
      return std::make_unique<FortunesLanguageModelWorkload>(s, options.context,
                                                             [options] { return std::make_shared<CharTransformer>(options); });
    };
  };
  r.push_back({lm, lm_factory(CharTransformerOptions{})});
  CharTransformerOptions glu_lm;
  glu_lm.block.glu = true;
  r.push_back({variant(lm, "fortunes_lm_glu", "GLU MLP blocks", 2.2588, 2.2469), lm_factory(glu_lm)});
  CharTransformerOptions rms_lm;
  rms_lm.block.norm = NormKind::rms_norm;
  r.push_back({variant(lm, "fortunes_lm_rmsnorm", "RMSNorm instead of layer norm", 2.3697, 2.3576), lm_factory(rms_lm)});

  // Teacher-student linear regression: seconds to tune, for tests and quick checks.
  r.push_back({spec("synthetic_regression", "regression",
                    "Teacher-student linear regression, 32 inputs, noise std 0.5 (loss floor 0.25)", "loss", false,
                    0.2435, 0.2578, 2, 400, 0.05, 64),
               [](const WorkloadSpec& s) { return std::make_unique<SyntheticRegressionWorkload>(s, SyntheticRegressionOptions{}); }});
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
  c.entries.push_back({std::move(spec), std::move(factory)});
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

std::unique_ptr<Workload> create_workload(const std::string& name) {
  const Registration& r = registration(name);
  return r.make(r.spec);
}

}  // namespace pacer
