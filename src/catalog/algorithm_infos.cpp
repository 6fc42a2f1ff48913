#include "catalog/algorithm_infos.h"

#include <mutex>

#include "core/error.h"

namespace pacer {
namespace {

// Defaults of the baselines: the best point of the fmnist_mlp tuning runs (docs/targets.md).
BuiltinAlgorithm momentum_family(const std::string& name, const std::string& description, double learning_rate,
                                 bool momentum) {
  BuiltinAlgorithm b;
  b.name = name;
  b.description = description;
  b.own = {{"learning_rate", learning_rate, 0.0, 100.0, "peak learning rate"}};
  if (momentum) b.own.push_back({"one_minus_beta1", 0.1, 0.0, 1.0, "1 - momentum"});
  b.own.insert(b.own.end(), {
      {"weight_decay", 0.0, 0.0, 10.0, "L2 weight decay added to the gradient"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
      {"decay_steps_factor", 0.9, 0.0, 10.0, "decay steps as a fraction of the post-warmup step hint"},
      {"end_factor", 0.01, 0.0, 1.0, "final learning rate as a fraction of the peak"},
  });
  return b;
}

BuiltinAlgorithm adam_family(const std::string& name, const std::string& description, double learning_rate,
                             double weight_decay, const std::string& weight_decay_description) {
  BuiltinAlgorithm b;
  b.name = name;
  b.description = description;
  b.own = {
      {"learning_rate", learning_rate, 0.0, 10.0, "peak learning rate"},
      {"one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1", true, false},
      {"beta2", 0.999, 0.0, 1.0, "second-moment decay", false, true},
      {"weight_decay", weight_decay, 0.0, 10.0, weight_decay_description},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
  };
  return b;
}

// The state-of-the-art baselines: what src/algorithms/<name>.cpp trains with these names.
BuiltinAlgorithm lamb() {
  BuiltinAlgorithm b;
  b.name = "lamb";
  b.description = "LAMB: Adam direction scaled per tensor by the trust ratio |w|/|update| (cybertronai), warmup + cosine";
  b.own = {
      {"learning_rate", 0.01, 0.0, 10.0, "peak learning rate"},
      {"one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1", true, false},
      {"beta2", 0.999, 0.0, 1.0, "second-moment decay", false, true},
      {"epsilon", 1e-6, 0.0, 1.0, "added to the square root of the second moment", true, false},
      {"weight_decay", 0.01, 0.0, 10.0, "decoupled weight decay (inside the trust ratio)"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
  };
  return b;
}

BuiltinAlgorithm lion() {
  BuiltinAlgorithm b;
  b.name = "lion";
  b.description = "Lion: sign of interpolated momentum, decoupled decay (google/automl), warmup + cosine decay";
  b.own = {
      {"learning_rate", 3e-4, 0.0, 10.0, "peak learning rate (Lion's step per coordinate)"},
      {"one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1 (interpolation for the sign)"},
      {"beta2", 0.99, 0.0, 1.0, "momentum decay"},
      {"weight_decay", 0.1, 0.0, 100.0, "decoupled weight decay"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
  };
  return b;
}

BuiltinAlgorithm adafactor() {
  BuiltinAlgorithm b;
  b.name = "adafactor";
  b.description = "Adafactor: factored second moment, relative step, update clipping (torch.optim.Adafactor), warmup + cosine";
  b.own = {
      {"learning_rate", 0.01, 0.0, 10.0, "peak of the relative step min(lr, 1/sqrt(t))"},
      {"beta2_decay", -0.8, -10.0, 0.0, "second-moment decay 1 - t^beta2_decay"},
      {"epsilon1", 0.0, 0.0, 1.0, "floor of the second moment (0: the dtype's machine epsilon)"},
      {"epsilon2", 1e-3, 0.0, 1.0, "floor of the parameter RMS in the relative step"},
      {"clip_threshold", 1.0, 1e-6, 1e6, "cap on the update's RMS"},
      {"weight_decay", 0.0, 0.0, 10.0, "decoupled weight decay"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
  };
  return b;
}

BuiltinAlgorithm ademamix() {
  BuiltinAlgorithm b;
  b.name = "ademamix";
  b.description = "AdEMAMix: Adam plus a slow gradient EMA mixed in with alpha (apple/ml-ademamix), warmup + cosine";
  b.own = {
      {"learning_rate", 0.002, 0.0, 10.0, "peak learning rate"},
      {"one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1 (fast EMA)", true, false},
      {"beta2", 0.999, 0.0, 1.0, "second-moment decay", false, true},
      {"beta3", 0.999, 0.0, 1.0, "slow EMA decay"},
      {"alpha", 5.0, 0.0, 1000.0, "weight of the slow EMA"},
      {"alpha_beta3_warmup_factor", 1.0, 0.0, 10.0,
       "alpha and beta3 warm up over this fraction of the step hint (0: no warmup)"},
      {"weight_decay", 0.01, 0.0, 10.0, "decoupled weight decay"},
      {"warmup_factor", 0.05, 0.0, 1.0, "learning-rate warmup steps as a fraction of the step hint"},
  };
  return b;
}

BuiltinAlgorithm muon() {
  BuiltinAlgorithm b;
  b.name = "muon";
  b.description = "Muon: orthogonalized Nesterov momentum for hidden matrices, AdamW for the rest (KellerJordan), warmup + cosine";
  b.own = {
      {"learning_rate", 0.02, 0.0, 10.0, "peak learning rate of the hidden matrices"},
      {"momentum", 0.95, 0.0, 1.0, "momentum of the hidden matrices"},
      {"nesterov", 1.0, 0.0, 1.0, "1: Nesterov momentum, 0: heavy ball"},
      {"ns_steps", 5.0, 1.0, 20.0, "Newton-Schulz iterations"},
      {"adam_learning_rate", 0.003, 0.0, 10.0, "peak learning rate of the AdamW tensors (head, biases, gains)"},
      {"adam_one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1 of the AdamW tensors"},
      {"adam_beta2", 0.95, 0.0, 1.0, "beta2 of the AdamW tensors"},
      {"weight_decay", 0.0, 0.0, 10.0, "decoupled weight decay (both groups)"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
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
      {"learning_rate", 0.0025, 0.0, 10.0, "learning rate after the warmup"},
      {"one_minus_beta1", 0.1, 1e-6, 1.0, "1 - beta1 (y's interpolation between x and z)"},
      {"beta2", 0.99552, 0.0, 1.0, "second-moment decay", false, true},
      {"epsilon", 1e-8, 0.0, 1.0, "added to the square root of the second moment", true, false},
      {"weight_decay", 0.08121, 0.0, 10.0, "weight decay, applied at y"},
      {"r", 0.0, 0.0, 10.0, "polynomial weighting k^r of the average"},
      {"weight_lr_power", 2.0, 0.0, 10.0, "weighting lr_max^p of the average"},
      {"warmup_factor", 0.015, 0.0, 1.0, "warmup steps as a fraction of the step hint (then constant)"},
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
      {"learning_rate", 0.0017486387539278373, 0.0, 100.0, "peak learning rate"},
      {"one_minus_beta1", 0.06733926164, 0.0, 1.0, "1 - beta1 (EMA of the preconditioned gradient; 1: none)"},
      {"beta2", 1.0 - 0.00448403102, 0.0, 1.0, "EMA of the Kronecker factors and of Adam grafting (1: sum)"},
      {"epsilon", 1e-8, 0.0, 1.0, "added to the factors' diagonal before the inverse root"},
      {"momentum", 0.0, 0.0, 1.0, "momentum on the grafted direction (0: none)"},
      {"nesterov", 1.0, 0.0, 1.0, "1: Nesterov momentum"},
      {"ema_momentum", 1.0, 0.0, 1.0, "1: momentum as an EMA (the v0.6 submission's)"},
      {"nadam", 1.0, 0.0, 1.0, "1: NAdam-style look-ahead of the filtered gradient (the v0.6 submission's)"},
      {"weight_decay", 0.08121616522670176, 0.0, 10.0, "decoupled weight decay"},
      {"warmup_factor", 0.02, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
      {"max_preconditioner_dim", 1024.0, 1.0, 65536.0, "largest block side"},
      {"precondition_frequency", 100.0, 1.0, 1e9, "steps between inverse-root refreshes"},
      {"start_preconditioning_step", -1.0, -1.0, 1e9, "grafted method alone before this step (-1: the frequency)"},
      {"sgd_grafting", 0.0, 0.0, 1.0, "1: graft onto SGD's step norm instead of Adam's"},
      {"grafting_epsilon", 1e-8, 0.0, 1.0, "epsilon of Adam grafting"},
      {"inverse_root_override", 0.0, 0.0, 64.0, "root of every factor's inverse (0: 2 x block order)"},
  };
  b.common_defaults = {{"dropout_rate", 0.1}};
  return b;
}

BuiltinAlgorithm soap() {
  BuiltinAlgorithm b;
  b.name = "soap";
  b.description = "SOAP: Adam in the eigenbasis of Shampoo's factors (nikhilvyas/SOAP), warmup + cosine";
  b.own = {
      {"learning_rate", 3e-3, 0.0, 10.0, "peak learning rate"},
      {"one_minus_beta1", 0.05, 0.0, 1.0, "1 - beta1", true, false},
      {"beta2", 0.95, 0.0, 1.0, "second-moment decay", false, true},
      {"shampoo_beta", -1.0, -1.0, 1.0, "EMA of the factors (-1: beta2)"},
      {"epsilon", 1e-8, 0.0, 1.0, "added to the square root of the second moment", true, false},
      {"weight_decay", 0.01, 0.0, 10.0, "decoupled weight decay"},
      {"precondition_frequency", 10.0, 1.0, 1e9, "steps between eigenbasis refreshes"},
      {"max_precond_dim", 10000.0, 1.0, 65536.0, "larger dimensions are not rotated"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
  };
  return b;
}

BuiltinAlgorithm sam() {
  BuiltinAlgorithm b;
  b.name = "sam";
  b.description =
      "SAM: gradient at the worst nearby point (rho), over AdamW (davda54/sam); two passes per step, warmup + cosine";
  b.own = {
      {"learning_rate", 0.002, 0.0, 10.0, "peak learning rate of the AdamW step"},
      {"one_minus_beta1", 0.1, 0.0, 1.0, "1 - beta1", true, false},
      {"beta2", 0.999, 0.0, 1.0, "second-moment decay", false, true},
      {"weight_decay", 0.01, 0.0, 10.0, "decoupled weight decay"},
      {"warmup_factor", 0.05, 0.0, 1.0, "warmup steps as a fraction of the step hint"},
      {"rho", 0.05, 0.0, 100.0, "radius of the perturbation"},
      {"adaptive", 0.0, 0.0, 1.0, "1: adaptive SAM (ASAM), the perturbation scaled by |w|"},
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
      {"label_smoothing", 0.0, 0.0, 0.99, "label smoothing of the cross-entropy loss"},
      {"dropout_rate", 0.0, 0.0, 0.99, "dropout rate passed to the model"},
      {"grad_clip", 0.0, 0.0, 1e12, "clip the global gradient norm to this value (0: off)"},
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
