#include "catalog/algorithm_infos.h"

#include <mutex>

#include "core/error.h"
#include "core/hyperparameter_builder.h"

namespace pacer {
namespace {

// Defaults of the baselines: the best point of the fmnist_mlp tuning runs (docs/targets.md).
BuiltinAlgorithm momentum_family(const std::string& name, const std::string& description, double learning_rate,
                                 bool momentum) {
  BuiltinAlgorithm b;
  b.name = name;
  b.description = description;
  b.own = {hyperparameter("learning_rate").defaults_to(learning_rate).in(0.0, 100.0).describe("peak learning rate")};
  if (momentum) b.own.push_back(hyperparameter("one_minus_beta1").defaults_to(0.1).in(0.0, 1.0)
      .describe("1 - momentum"));
  b.own.insert(b.own.end(), {
      hyperparameter("weight_decay").defaults_to(0.0).in(0.0, 10.0).describe("L2 weight decay added to the gradient"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
      hyperparameter("decay_steps_factor").defaults_to(0.9).in(0.0, 10.0)
          .describe("decay steps as a fraction of the post-warmup step hint"),
      hyperparameter("end_factor").defaults_to(0.01).in(0.0, 1.0)
          .describe("final learning rate as a fraction of the peak"),
  });
  return b;
}

BuiltinAlgorithm adam_family(const std::string& name, const std::string& description, double learning_rate,
                             double weight_decay, const std::string& weight_decay_description) {
  BuiltinAlgorithm b;
  b.name = name;
  b.description = description;
  b.own = {
      hyperparameter("learning_rate").defaults_to(learning_rate).in(0.0, 10.0).describe("peak learning rate"),
      hyperparameter("one_minus_beta1").defaults_to(0.1).in(0.0, 1.0).excluding_min().describe("1 - beta1"),
      hyperparameter("beta2").defaults_to(0.999).in(0.0, 1.0).excluding_max().describe("second-moment decay"),
      hyperparameter("weight_decay").defaults_to(weight_decay).in(0.0, 10.0).describe(weight_decay_description),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
  };
  return b;
}

// The state-of-the-art baselines: what src/algorithms/<name>.cpp trains with these names.
BuiltinAlgorithm lamb() {
  BuiltinAlgorithm b;
  b.name = "lamb";
  b.description = "LAMB: Adam direction scaled per tensor by the trust ratio |w|/|update| (cybertronai), warmup + cosine";
  b.own = {
      hyperparameter("learning_rate").defaults_to(0.01).in(0.0, 10.0).describe("peak learning rate"),
      hyperparameter("one_minus_beta1").defaults_to(0.1).in(0.0, 1.0).excluding_min().describe("1 - beta1"),
      hyperparameter("beta2").defaults_to(0.999).in(0.0, 1.0).excluding_max().describe("second-moment decay"),
      hyperparameter("epsilon").defaults_to(1e-6).in(0.0, 1.0).excluding_min()
          .describe("added to the square root of the second moment"),
      hyperparameter("weight_decay").defaults_to(0.01).in(0.0, 10.0)
          .describe("decoupled weight decay (inside the trust ratio)"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
  };
  return b;
}

BuiltinAlgorithm lion() {
  BuiltinAlgorithm b;
  b.name = "lion";
  b.description = "Lion: sign of interpolated momentum, decoupled decay (google/automl), warmup + cosine decay";
  b.own = {
      hyperparameter("learning_rate").defaults_to(3e-4).in(0.0, 10.0)
          .describe("peak learning rate (Lion's step per coordinate)"),
      hyperparameter("one_minus_beta1").defaults_to(0.1).in(0.0, 1.0)
          .describe("1 - beta1 (interpolation for the sign)"),
      hyperparameter("beta2").defaults_to(0.99).in(0.0, 1.0).describe("momentum decay"),
      hyperparameter("weight_decay").defaults_to(0.1).in(0.0, 100.0).describe("decoupled weight decay"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
  };
  return b;
}

BuiltinAlgorithm adafactor() {
  BuiltinAlgorithm b;
  b.name = "adafactor";
  b.description = "Adafactor: factored second moment, relative step, update clipping (torch.optim.Adafactor), warmup + cosine";
  b.own = {
      hyperparameter("learning_rate").defaults_to(0.01).in(0.0, 10.0)
          .describe("peak of the relative step min(lr, 1/sqrt(t))"),
      hyperparameter("beta2_decay").defaults_to(-0.8).in(-10.0, 0.0).describe("second-moment decay 1 - t^beta2_decay"),
      hyperparameter("epsilon1").defaults_to(0.0).in(0.0, 1.0)
          .describe("floor of the second moment (0: the dtype's machine epsilon)"),
      hyperparameter("epsilon2").defaults_to(1e-3).in(0.0, 1.0)
          .describe("floor of the parameter RMS in the relative step"),
      hyperparameter("clip_threshold").defaults_to(1.0).in(1e-6, 1e6).describe("cap on the update's RMS"),
      hyperparameter("weight_decay").defaults_to(0.0).in(0.0, 10.0).describe("decoupled weight decay"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
  };
  return b;
}

BuiltinAlgorithm ademamix() {
  BuiltinAlgorithm b;
  b.name = "ademamix";
  b.description = "AdEMAMix: Adam plus a slow gradient EMA mixed in with alpha (apple/ml-ademamix), warmup + cosine";
  b.own = {
      hyperparameter("learning_rate").defaults_to(0.002).in(0.0, 10.0).describe("peak learning rate"),
      hyperparameter("one_minus_beta1").defaults_to(0.1).in(0.0, 1.0).excluding_min().describe("1 - beta1 (fast EMA)"),
      hyperparameter("beta2").defaults_to(0.999).in(0.0, 1.0).excluding_max().describe("second-moment decay"),
      hyperparameter("beta3").defaults_to(0.999).in(0.0, 1.0).describe("slow EMA decay"),
      hyperparameter("alpha").defaults_to(5.0).in(0.0, 1000.0).describe("weight of the slow EMA"),
      hyperparameter("alpha_beta3_warmup_factor").defaults_to(1.0).in(0.0, 10.0)
          .describe("alpha and beta3 warm up over this fraction of the step hint (0: no warmup)"),
      hyperparameter("weight_decay").defaults_to(0.01).in(0.0, 10.0).describe("decoupled weight decay"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("learning-rate warmup steps as a fraction of the step hint"),
  };
  return b;
}

BuiltinAlgorithm muon() {
  BuiltinAlgorithm b;
  b.name = "muon";
  b.description = "Muon: orthogonalized Nesterov momentum for hidden matrices, AdamW for the rest (KellerJordan), warmup + cosine";
  b.own = {
      hyperparameter("learning_rate").defaults_to(0.02).in(0.0, 10.0)
          .describe("peak learning rate of the hidden matrices"),
      hyperparameter("momentum").defaults_to(0.95).in(0.0, 1.0).describe("momentum of the hidden matrices"),
      hyperparameter("nesterov").defaults_to(1.0).in(0.0, 1.0).describe("1: Nesterov momentum, 0: heavy ball"),
      hyperparameter("ns_steps").defaults_to(5.0).in(1.0, 20.0).describe("Newton-Schulz iterations"),
      hyperparameter("adam_learning_rate").defaults_to(0.003).in(0.0, 10.0)
          .describe("peak learning rate of the AdamW tensors (head, biases, gains)"),
      hyperparameter("adam_one_minus_beta1").defaults_to(0.1).in(0.0, 1.0).describe("1 - beta1 of the AdamW tensors"),
      hyperparameter("adam_beta2").defaults_to(0.95).in(0.0, 1.0).describe("beta2 of the AdamW tensors"),
      hyperparameter("weight_decay").defaults_to(0.0).in(0.0, 10.0).describe("decoupled weight decay (both groups)"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
  };
  return b;
}

BuiltinAlgorithm schedule_free_adamw() {
  BuiltinAlgorithm b;
  b.name = "schedule_free_adamw";
  b.description =
      "Schedule-Free AdamW: no decay, evaluation at the averaged x (facebookresearch/schedule_free), "
      "defaults = the AlgoPerf self-tuning submission";
  // Defaults: the AlgoPerf v0.5 self-tuning submission (lr 0.0025, beta2 0.99552, weight decay
  // 0.08121, warmup 2% of 0.75 x step hint, label smoothing 0.2).
  b.own = {
      hyperparameter("learning_rate").defaults_to(0.0025).in(0.0, 10.0).describe("learning rate after the warmup"),
      hyperparameter("one_minus_beta1").defaults_to(0.1).in(1e-6, 1.0)
          .describe("1 - beta1 (y's interpolation between x and z)"),
      hyperparameter("beta2").defaults_to(0.99552).in(0.0, 1.0).excluding_max().describe("second-moment decay"),
      hyperparameter("epsilon").defaults_to(1e-8).in(0.0, 1.0).excluding_min()
          .describe("added to the square root of the second moment"),
      hyperparameter("weight_decay").defaults_to(0.08121).in(0.0, 10.0).describe("weight decay, applied at y"),
      hyperparameter("r").defaults_to(0.0).in(0.0, 10.0).describe("polynomial weighting k^r of the average"),
      hyperparameter("weight_lr_power").defaults_to(2.0).in(0.0, 10.0).describe("weighting lr_max^p of the average"),
      hyperparameter("warmup_factor").defaults_to(0.015).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint (then constant)"),
  };
  b.common_defaults = {{"label_smoothing", 0.2}};
  return b;
}

BuiltinAlgorithm shampoo() {
  BuiltinAlgorithm b;
  b.name = "shampoo";
  b.description =
      "Distributed Shampoo: blocked Kronecker-factored preconditioner, Adam grafting (facebookresearch/optimizers); "
      "defaults = AlgoPerf v0.6 submission's first point, warmup + cosine";
  // Defaults: the first point of the AlgoPerf v0.6 external-tuning submission (spaces/shampoo.json).
  b.own = {
      hyperparameter("learning_rate").defaults_to(0.0017486387539278373).in(0.0, 100.0).describe("peak learning rate"),
      hyperparameter("one_minus_beta1").defaults_to(0.06733926164).in(0.0, 1.0)
          .describe("1 - beta1 (EMA of the preconditioned gradient; 1: none)"),
      hyperparameter("beta2").defaults_to(1.0 - 0.00448403102).in(0.0, 1.0)
          .describe("EMA of the Kronecker factors and of Adam grafting (1: sum)"),
      hyperparameter("epsilon").defaults_to(1e-8).in(0.0, 1.0)
          .describe("added to the factors' diagonal before the inverse root"),
      hyperparameter("momentum").defaults_to(0.0).in(0.0, 1.0).describe("momentum on the grafted direction (0: none)"),
      hyperparameter("nesterov").defaults_to(1.0).in(0.0, 1.0).describe("1: Nesterov momentum"),
      hyperparameter("ema_momentum").defaults_to(1.0).in(0.0, 1.0)
          .describe("1: momentum as an EMA (the v0.6 submission's)"),
      hyperparameter("nadam").defaults_to(1.0).in(0.0, 1.0)
          .describe("1: NAdam-style look-ahead of the filtered gradient (the v0.6 submission's)"),
      hyperparameter("weight_decay").defaults_to(0.08121616522670176).in(0.0, 10.0).describe("decoupled weight decay"),
      hyperparameter("warmup_factor").defaults_to(0.02).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
      hyperparameter("max_preconditioner_dim").defaults_to(1024.0).in(1.0, 65536.0).describe("largest block side"),
      hyperparameter("precondition_frequency").defaults_to(100.0).in(1.0, 1e9)
          .describe("steps between inverse-root refreshes"),
      hyperparameter("start_preconditioning_step").defaults_to(-1.0).in(-1.0, 1e9)
          .describe("grafted method alone before this step (-1: the frequency)"),
      hyperparameter("sgd_grafting").defaults_to(0.0).in(0.0, 1.0)
          .describe("1: graft onto SGD's step norm instead of Adam's"),
      hyperparameter("grafting_epsilon").defaults_to(1e-8).in(0.0, 1.0).describe("epsilon of Adam grafting"),
      hyperparameter("inverse_root_override").defaults_to(0.0).in(0.0, 64.0)
          .describe("root of every factor's inverse (0: 2 x block order)"),
  };
  b.common_defaults = {{"dropout_rate", 0.1}};
  return b;
}

BuiltinAlgorithm soap() {
  BuiltinAlgorithm b;
  b.name = "soap";
  b.description = "SOAP: Adam in the eigenbasis of Shampoo's factors (nikhilvyas/SOAP), warmup + cosine";
  b.own = {
      hyperparameter("learning_rate").defaults_to(3e-3).in(0.0, 10.0).describe("peak learning rate"),
      hyperparameter("one_minus_beta1").defaults_to(0.05).in(0.0, 1.0).excluding_min().describe("1 - beta1"),
      hyperparameter("beta2").defaults_to(0.95).in(0.0, 1.0).excluding_max().describe("second-moment decay"),
      hyperparameter("shampoo_beta").defaults_to(-1.0).in(-1.0, 1.0).describe("EMA of the factors (-1: beta2)"),
      hyperparameter("epsilon").defaults_to(1e-8).in(0.0, 1.0).excluding_min()
          .describe("added to the square root of the second moment"),
      hyperparameter("weight_decay").defaults_to(0.01).in(0.0, 10.0).describe("decoupled weight decay"),
      hyperparameter("precondition_frequency").defaults_to(10.0).in(1.0, 1e9)
          .describe("steps between eigenbasis refreshes"),
      hyperparameter("max_precond_dim").defaults_to(10000.0).in(1.0, 65536.0)
          .describe("larger dimensions are not rotated"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
  };
  return b;
}

BuiltinAlgorithm sam() {
  BuiltinAlgorithm b;
  b.name = "sam";
  b.description =
      "SAM: gradient at the worst nearby point (rho), over AdamW (davda54/sam); two passes per step, warmup + cosine";
  b.own = {
      hyperparameter("learning_rate").defaults_to(0.002).in(0.0, 10.0).describe("peak learning rate of the AdamW step"),
      hyperparameter("one_minus_beta1").defaults_to(0.1).in(0.0, 1.0).excluding_min().describe("1 - beta1"),
      hyperparameter("beta2").defaults_to(0.999).in(0.0, 1.0).excluding_max().describe("second-moment decay"),
      hyperparameter("weight_decay").defaults_to(0.01).in(0.0, 10.0).describe("decoupled weight decay"),
      hyperparameter("warmup_factor").defaults_to(0.05).in(0.0, 1.0)
          .describe("warmup steps as a fraction of the step hint"),
      hyperparameter("rho").defaults_to(0.05).in(0.0, 100.0).describe("radius of the perturbation"),
      hyperparameter("adaptive").defaults_to(0.0).in(0.0, 1.0)
          .describe("1: adaptive SAM (ASAM), the perturbation scaled by |w|"),
  };
  return b;
}

std::vector<BuiltinAlgorithm> shipped_algorithms() {
  std::vector<BuiltinAlgorithm> r;
  r.push_back(momentum_family("sgd", "SGD, warmup + linear decay", 0.5, false));
  r.push_back(momentum_family("momentum", "heavy-ball momentum, warmup + linear decay (AlgoPerf baseline)", 0.1, true));
  r.push_back(momentum_family("nesterov", "Nesterov momentum, warmup + linear decay (AlgoPerf baseline)", 0.1, true));
  r.push_back(adam_family("adam", "Adam with L2 weight decay, warmup + cosine decay", 0.002, 0.0,
                          "L2 weight decay added to the gradient"));
  r.push_back(adam_family("adamw", "AdamW (decoupled weight decay), warmup + cosine decay (AlgoPerf baseline)", 0.002,
                          0.01, "decoupled weight decay"));
  r.push_back(adam_family("nadamw", "NAdamW, warmup + cosine decay (the AlgoPerf reference baseline)", 0.005, 0.01,
                          "decoupled weight decay"));
  // The state-of-the-art baselines (docs/algorithms.md), each updating in src/algorithms/<name>.cpp.
  for (auto algorithm : {lamb, lion, adafactor, ademamix, muon, schedule_free_adamw, shampoo, soap, sam})
    r.push_back(algorithm());
  return r;
}

struct Registered {
  std::mutex mutex;
  std::vector<std::pair<std::string, AlgorithmDescriber>> entries;  // registration order
};

Registered& registered() {
  static Registered r;
  return r;
}

}  // namespace

std::vector<HyperparameterSpec> common_hyperparameter_specs() {
  return {
      hyperparameter("label_smoothing").defaults_to(0.0).in(0.0, 0.99)
          .describe("label smoothing of the cross-entropy loss"),
      hyperparameter("dropout_rate").defaults_to(0.0).in(0.0, 0.99).describe("dropout rate passed to the model"),
      hyperparameter("grad_clip").defaults_to(0.0).in(0.0, 1e12)
          .describe("clip the global gradient norm to this value (0: off)"),
  };
}

AlgorithmInfo BuiltinAlgorithm::info() const {
  AlgorithmInfo info{name, description, own};
  for (auto spec : common_hyperparameter_specs()) {
    for (const auto& [common, value] : common_defaults)
      if (spec.name == common) spec.default_value = value;
    info.hyperparameters.push_back(spec);
  }
  return info;
}

const std::vector<BuiltinAlgorithm>& builtin_algorithms() {
  static const std::vector<BuiltinAlgorithm> algorithms = shipped_algorithms();
  return algorithms;
}

const BuiltinAlgorithm& builtin_algorithm(const std::string& name) {
  for (const auto& b : builtin_algorithms())
    if (b.name == name) return b;
  throw Error("'" + name + "' is not a built-in algorithm");
}

void register_algorithm_info(const std::string& name, AlgorithmDescriber describe) {
  if (name.empty()) throw Error("register_algorithm: empty name");
  if (!describe) throw Error("register_algorithm: '" + name + "' has no factory");
  Registered& r = registered();
  std::lock_guard<std::mutex> lock(r.mutex);
  bool taken = false;
  for (const auto& b : builtin_algorithms()) taken = taken || b.name == name;
  for (const auto& [n, d] : r.entries) taken = taken || n == name;
  if (taken) throw Error("register_algorithm: the name '" + name + "' is already taken");
  r.entries.emplace_back(name, std::move(describe));
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const auto& b : builtin_algorithms()) names.push_back(b.name);
  Registered& r = registered();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& [n, d] : r.entries) names.push_back(n);
  return names;
}

AlgorithmInfo algorithm_info(const std::string& name) {
  for (const auto& b : builtin_algorithms())
    if (b.name == name) return b.info();
  AlgorithmDescriber describe;
  {
    Registered& r = registered();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& [n, d] : r.entries)
      if (n == name) describe = d;
  }
  if (describe) return describe();
  std::string valid;
  for (const auto& n : algorithm_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw InputError("unknown algorithm '" + name + "' (valid: " + valid + ")");
}

std::vector<AlgorithmInfo> algorithm_infos() {
  std::vector<AlgorithmInfo> infos;
  for (const auto& n : algorithm_names()) infos.push_back(algorithm_info(n));
  return infos;
}

}  // namespace pacer
