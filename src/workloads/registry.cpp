#include "workloads/registry.h"

#include <functional>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

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

// A factory: the workload from its spec and the given model options (validated).
using ConfigurableFactory = std::function<std::unique_ptr<Workload>(const WorkloadSpec&, const WorkloadOptions&)>;

int64_t integer_of(const WorkloadOptions& o, const std::string& key, int64_t current) {
  const auto it = o.find(key);
  return it == o.end() ? current : std::stoll(it->second);  // validated before
}
Activation activation_of(const WorkloadOptions& o, Activation current) {
  const auto it = o.find("activation");
  return it == o.end() ? current : activation_from_string(it->second);
}

// ---- How each declared option (catalog/workload_specs.cpp) applies to a model's options struct.
MlpOptions apply(MlpOptions m, const WorkloadOptions& o) {
  m.activation = activation_of(o, m.activation);
  const int64_t width = integer_of(o, "width", m.hidden.empty() ? 128 : m.hidden[0]);
  m.hidden.assign(static_cast<size_t>(integer_of(o, "depth", static_cast<int64_t>(m.hidden.size()))), width);
  return m;
}
SimpleCnnOptions apply(SimpleCnnOptions m, const WorkloadOptions& o) {
  m.dense_size = integer_of(o, "width", m.dense_size);
  m.conv1_channels = integer_of(o, "channels", m.conv1_channels);
  m.conv2_channels = 2 * m.conv1_channels;
  return m;
}
ResNetOptions apply(ResNetOptions m, const WorkloadOptions& o) {
  m.activation = activation_of(o, m.activation);
  const int64_t w = integer_of(o, "width", m.widths[0]);
  m.widths = {w, 2 * w, 4 * w};
  m.blocks_per_stage = integer_of(o, "depth", m.blocks_per_stage);
  return m;
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
// Eval batch sizes of the ResNet and ViT: measured fastest per image on CPU (bench/speed/eval_batch_size.py).
constexpr int64_t kResNetEvalBatch = 64, kVitEvalBatch = 64;

ConfigurableFactory reconstruction(UNetOptions options) {
  return [options](const WorkloadSpec& s, const WorkloadOptions& given) {
    const UNetOptions configured = apply(options, given);
    return std::make_unique<FashionMnistReconstructionWorkload>(s, [configured] { return std::make_shared<UNet>(configured); });
  };
}
ConfigurableFactory language_model(CharTransformerOptions options) {
  return [options](const WorkloadSpec& s, const WorkloadOptions& given) {
    CharTransformerOptions configured = options;
    configured.block = apply_block(options.block, given, s.name);
    configured.depth = integer_of(given, "depth", options.depth);
    return std::make_unique<FortunesLanguageModelWorkload>(
        s, configured.context, [configured] { return std::make_shared<CharTransformer>(configured); });
  };
}

// The factory of each shipped workload, under its catalog name (catalog/workload_specs.cpp).
std::vector<std::pair<std::string, ConfigurableFactory>> shipped_factories() {
  std::vector<std::pair<std::string, ConfigurableFactory>> r;
  r.emplace_back("fmnist_mlp", image_classifier<Mlp>(MlpOptions{}));
  MlpOptions tanh_mlp;
  tanh_mlp.activation = Activation::tanh;
  r.emplace_back("fmnist_mlp_tanh", image_classifier<Mlp>(tanh_mlp));
  MlpOptions ln_mlp;
  ln_mlp.layer_norm = true;
  r.emplace_back("fmnist_mlp_layernorm", image_classifier<Mlp>(ln_mlp));

  r.emplace_back("fmnist_cnn", image_classifier<SimpleCnn>(SimpleCnnOptions{}));

  r.emplace_back("fmnist_resnet", image_classifier<ResNet>(ResNetOptions{}, kResNetEvalBatch));
  ResNetOptions silu;
  silu.activation = Activation::silu;
  r.emplace_back("fmnist_resnet_silu", image_classifier<ResNet>(silu, kResNetEvalBatch));
  ResNetOptions large_bn;
  large_bn.last_bn_scale_init = 8.0;
  r.emplace_back("fmnist_resnet_large_bn_init", image_classifier<ResNet>(large_bn, kResNetEvalBatch));

  r.emplace_back("fmnist_vit", image_classifier<VisionTransformer>(VisionTransformerOptions{}, kVitEvalBatch));
  VisionTransformerOptions glu_vit;
  glu_vit.block.glu = true;
  r.emplace_back("fmnist_vit_glu", image_classifier<VisionTransformer>(glu_vit, kVitEvalBatch));
  VisionTransformerOptions post_ln;
  post_ln.block.post_norm = true;
  r.emplace_back("fmnist_vit_post_ln", image_classifier<VisionTransformer>(post_ln, kVitEvalBatch));

  r.emplace_back("fmnist_recon", reconstruction(UNetOptions{}));
  UNetOptions tanh_unet;
  tanh_unet.activation = Activation::tanh;
  r.emplace_back("fmnist_recon_tanh", reconstruction(tanh_unet));
  UNetOptions ln_unet;
  ln_unet.norm = UNetNorm::layer_norm;
  r.emplace_back("fmnist_recon_layernorm", reconstruction(ln_unet));

  r.emplace_back("fortunes_lm", language_model(CharTransformerOptions{}));
  CharTransformerOptions glu_lm;
  glu_lm.block.glu = true;
  r.emplace_back("fortunes_lm_glu", language_model(glu_lm));
  CharTransformerOptions rms_lm;
  rms_lm.block.norm = NormKind::rms_norm;
  r.emplace_back("fortunes_lm_rmsnorm", language_model(rms_lm));

  r.emplace_back("synthetic_regression", [](const WorkloadSpec& s, const WorkloadOptions&) {
    return std::make_unique<SyntheticRegressionWorkload>(s, SyntheticRegressionOptions{});
  });
  return r;
}

struct Factories {
  Factories() {
    for (auto& [name, make] : shipped_factories()) by_name.emplace(name, std::move(make));
  }
  std::mutex mutex;
  std::map<std::string, ConfigurableFactory> by_name;
};

Factories& factories() {
  static Factories f;  // built on first use, so registration never races static initialization
  return f;
}

}  // namespace

void register_workload(WorkloadSpec spec, WorkloadFactory factory) {
  if (spec.name.empty()) throw Error("register_workload: empty name");
  if (!factory) throw Error("register_workload: '" + spec.name + "' has no factory");
  const std::string name = spec.name;
  Factories& f = factories();
  std::lock_guard<std::mutex> lock(f.mutex);
  register_workload_spec(std::move(spec));  // Error for an empty or taken name: nothing is added
  f.by_name.emplace(name, [factory](const WorkloadSpec& s, const WorkloadOptions&) { return factory(s); });
}

std::unique_ptr<Workload> create_workload(const std::string& name, const WorkloadOptions& options) {
  const WorkloadSpec& spec = workload_spec(name);  // InputError listing the valid names
  ConfigurableFactory make;
  {
    Factories& f = factories();
    std::lock_guard<std::mutex> lock(f.mutex);
    if (const auto it = f.by_name.find(name); it != f.by_name.end()) make = it->second;
  }
  if (!make) throw Error("workload '" + name + "' is in the catalog but has no factory (register_workload)");
  spec.validate_options(options);
  if (options.empty()) return make(spec, options);
  WorkloadSpec configured = spec;  // says what it is in logs and listings
  configured.description += " [options: " + to_string(options) + "]";
  return make(configured, options);
}

}  // namespace pacer
