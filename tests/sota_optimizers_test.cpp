// Golden-value tests of the state-of-the-art baselines' update rules: a small float64 model with
// convolution, matrix and vector parameters (tools/golden/golden_model.py) is trained full-batch
// for 25 steps with each rule, and the losses, the parameters after steps 1, 2, 5, 10, 20 and 25
// and the optimizer state after step 25 must match independent Python transcriptions of the
// reference implementations: tools/golden/generate_sota_golden.py (LAMB, Lion, Adafactor,
// AdEMAMix, Muon, SAM, Schedule-Free AdamW) and tools/golden/generate_preconditioner_golden.py
// (Shampoo, SOAP). Halfway, each rule is rebuilt from its saved state, so the last checkpoints
// also test save and load.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/adafactor.h"
#include "algorithms/ademamix.h"
#include "algorithms/lamb.h"
#include "algorithms/lion.h"
#include "algorithms/muon.h"
#include "algorithms/sam.h"
#include "algorithms/schedule_free_adamw.h"
#include "algorithms/shampoo.h"
#include "algorithms/soap.h"
#include "algorithms/update_rules.h"
#include "algorithms/update_transforms.h"
#include "core/error.h"

namespace pacer {
namespace {

constexpr double kTolerance = 1e-9;  // relative and absolute, float64

const std::vector<std::string> kGoldenFiles = {"sota_optimizers.json", "preconditioned_optimizers.json"};

struct GoldenCase {
  std::string name;
  const nlohmann::json* file = nullptr;
  const nlohmann::json* data = nullptr;
};

const std::vector<nlohmann::json>& golden_files() {
  static const std::vector<nlohmann::json> files = [] {
    std::vector<nlohmann::json> out;
    for (const auto& name : kGoldenFiles) {
      const std::string path = std::string(PACER_SOURCE_DIR) + "/tests/golden/" + name;
      std::ifstream in(path);
      if (!in) throw std::runtime_error("cannot open " + path);
      out.push_back(nlohmann::json::parse(in));
    }
    return out;
  }();
  return files;
}

std::map<std::string, GoldenCase> golden_cases() {
  std::map<std::string, GoldenCase> cases;
  for (const auto& file : golden_files()) {
    for (const auto& [name, data] : file["cases"].items()) cases[name] = {name, &file, &data};
  }
  return cases;
}

at::Tensor to_tensor(const nlohmann::json& values, std::vector<int64_t> shape) {
  const auto v = values.get<std::vector<double>>();
  return at::tensor(at::ArrayRef<double>(v), at::TensorOptions().dtype(at::kDouble)).view(shape);
}

ParamType type_named(const std::string& name) {
  for (ParamType t : {ParamType::weight, ParamType::bias, ParamType::conv_weight, ParamType::layer_norm_scale,
                      ParamType::layer_norm_bias, ParamType::batch_norm_scale, ParamType::batch_norm_bias,
                      ParamType::embedding}) {
    if (name == to_string(t)) return t;
  }
  throw std::runtime_error("unknown parameter type " + name);
}

// The generator's model (golden_model.py): conv -> tanh -> linear -> tanh * gain -> head, MSE.
struct Model {
  at::Tensor x, y;
  std::vector<at::Tensor> initial;
  std::vector<ParamType> types;

  explicit Model(const nlohmann::json& file) {
    x = to_tensor(file["inputs"], file["input_shape"].get<std::vector<int64_t>>());
    y = to_tensor(file["targets"], file["target_shape"].get<std::vector<int64_t>>());
    for (const auto& p : file["parameters"]) {
      initial.push_back(to_tensor(p["values"], p["shape"].get<std::vector<int64_t>>()));
      types.push_back(type_named(p["type"].get<std::string>()));
    }
  }

  std::pair<double, std::vector<at::Tensor>> loss_and_grads(const std::vector<at::Tensor>& params) const {
    at::AutoGradMode enable_grad(true);  // the tests run the rules under NoGradGuard
    std::vector<at::Tensor> leaves;
    for (const auto& p : params) leaves.push_back(p.detach().clone().requires_grad_(true));
    at::Tensor h = at::tanh(at::conv2d(x, leaves[0], leaves[1])).flatten(1);
    h = at::tanh(at::linear(h, leaves[2], leaves[3])) * leaves[4];
    at::Tensor loss = at::mse_loss(at::linear(h, leaves[5], leaves[6]), y);
    auto grads = torch::autograd::grad({loss}, leaves);
    for (auto& g : grads) g = g.detach();
    return {loss.item<double>(), grads};
  }
};

::testing::AssertionResult close_to(const at::Tensor& actual, const nlohmann::json& expected_json,
                                    double tolerance = kTolerance) {
  const auto expected = expected_json.get<std::vector<double>>();
  at::Tensor a = actual.contiguous().to(at::kDouble).reshape(-1);
  if (a.numel() != static_cast<int64_t>(expected.size()))
    return ::testing::AssertionFailure() << "size " << a.numel() << " vs expected " << expected.size();
  const double* data = a.data_ptr<double>();
  for (size_t i = 0; i < expected.size(); ++i) {
    const double diff = std::abs(data[i] - expected[i]);
    if (!(diff <= tolerance * (1.0 + std::abs(expected[i])))) {
      std::ostringstream msg;
      msg.precision(17);
      msg << "element " << i << ": " << data[i] << " vs expected " << expected[i];
      return ::testing::AssertionFailure() << msg.str();
    }
  }
  return ::testing::AssertionSuccess();
}


// A transform, then a rule, on the same tensors: Lion's decoupled decay is its recipe's
// transform (algorithms/update_transforms.h), as TensorwiseAlgorithm runs them.
class DecayedRule final : public TensorRule {
 public:
  DecayedRule(std::unique_ptr<TensorRule> transform, std::unique_ptr<TensorRule> rule)
      : transform_(std::move(transform)), rule_(std::move(rule)) {}
  void step(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, double lr) override {
    transform_->step(params, grads, lr);
    rule_->step(params, grads, lr);
  }
  NamedTensors state() const override { return rule_->state(); }
  void load_state(const NamedTensors& state) override { rule_->load_state(state); }

 private:
  std::unique_ptr<TensorRule> transform_, rule_;
};

using RuleFactory = std::function<std::unique_ptr<TensorRule>(const nlohmann::json& options,
                                                              const std::vector<TensorInfo>& tensors)>;

// The options of each golden case, mapped onto the C++ rule (the option keys are the generator's).
const std::map<std::string, RuleFactory>& rule_factories() {
  static const std::map<std::string, RuleFactory> factories = {
      {"lamb",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         return std::make_unique<LambRule>(LambOptions{o["beta1"], o["beta2"], o["eps"], o["weight_decay"]}, t);
       }},
      {"lion",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         return std::make_unique<DecayedRule>(std::make_unique<DecoupledWeightDecay>(o["weight_decay"].get<double>()),
                                              std::make_unique<LionRule>(LionOptions{o["beta1"], o["beta2"]}, t));
       }},
      {"adafactor",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         return std::make_unique<AdafactorRule>(
             AdafactorOptions{o["beta2_decay"], o["eps1"], o["eps2"], o["clip_threshold"], o["weight_decay"]}, t);
       }},
      {"ademamix",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         AdemamixOptions a;
         a.beta1 = o["beta1"];
         a.beta2 = o["beta2"];
         a.beta3 = o["beta3"];
         a.alpha = o["alpha"];
         a.alpha_beta3_warmup = o["alpha_beta3_warmup"];
         a.eps = o["eps"];
         a.weight_decay = o["weight_decay"];
         return std::make_unique<AdemamixRule>(a, t);
       }},
      {"muon",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         MuonOptions m;
         m.momentum = o["momentum"];
         m.nesterov = o["nesterov"].get<int>() != 0;
         m.ns_steps = o["ns_steps"];
         m.weight_decay = o["weight_decay"];
         m.adam_lr_ratio = o["adam_lr_ratio"];
         m.adam_beta1 = o["adam_beta1"];
         m.adam_beta2 = o["adam_beta2"];
         m.adam_eps = o["adam_eps"];
         return std::make_unique<MuonRule>(m, t);
       }},
      {"schedule_free_adamw",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         return std::make_unique<ScheduleFreeAdamwRule>(
             ScheduleFreeAdamwOptions{o["beta1"], o["beta2"], o["eps"], o["weight_decay"], o["r"], o["weight_lr_power"]},
             t);
       }},
      {"shampoo",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         ShampooOptions s;
         s.beta1 = o["beta1"];
         s.beta2 = o["beta2"];
         s.epsilon = o["epsilon"];
         s.momentum = o["momentum"];
         s.nesterov = o["nesterov"].get<int>() != 0;
         s.ema_momentum = o.value("ema_momentum", 0) != 0;
         s.nadam = o.value("nadam", 0) != 0;
         s.weight_decay = o["weight_decay"];
         s.max_preconditioner_dim = o["max_preconditioner_dim"];
         s.precondition_frequency = o["precondition_frequency"];
         s.start_preconditioning_step = o["start_preconditioning_step"];
         s.use_bias_correction = o["use_bias_correction"].get<int>() != 0;
         s.sgd_grafting = o.value("sgd_grafting", 0) != 0;
         s.grafting_beta2 = o["grafting_beta2"];
         s.grafting_epsilon = o["grafting_epsilon"];
         s.merge_dims = o["merge_dims"].get<int>() != 0;
         s.inverse_root_override = o.value("inverse_root_override", 0);
         if (o["decoupled_weight_decay"].get<int>() != 1) throw std::runtime_error("only decoupled weight decay");
         return std::make_unique<ShampooRule>(s, t);
       }},
      {"soap",
       [](const nlohmann::json& o, const std::vector<TensorInfo>& t) {
         SoapOptions s;
         s.beta1 = o["beta1"];
         s.beta2 = o["beta2"];
         s.shampoo_beta = o["shampoo_beta"];
         s.eps = o["eps"];
         s.weight_decay = o["weight_decay"];
         s.precondition_frequency = o["precondition_frequency"];
         s.max_precond_dim = o["max_precond_dim"];
         s.correct_bias = o["correct_bias"].get<int>() != 0;
         return std::make_unique<SoapRule>(s, t);
       }},
  };
  return factories;
}

// The C++ state key holding golden state `name` of tensor `index`, or "" when the golden value is
// not a saved state of the rule (SOAP's exp_avg in parameter space is sign-convention free, the
// saved exp_avg is not) or is assembled from several Shampoo blocks.
std::string state_key(const std::string& algorithm, const std::string& name, size_t index,
                      const std::map<std::string, at::Tensor>& state) {
  const std::string i = std::to_string(index);
  if (algorithm == "shampoo") {
    if (name == "factor0_block0") return "factor." + i + ".0.0";
    if (name == "inv_root0_block0") return "inverse_root." + i + ".0.0";
    if (state.count("factor." + i + ".1.0")) return "";  // several blocks
    return name + "." + i + ".0.0";
  }
  if (algorithm == "soap") {
    if (name == "GG0") return "factor." + i + ".0";
    if (name == "exp_avg_sq") return "exp_avg_sq." + i;
    return "";
  }
  return name + "." + i;
}

// Golden checkpoints whose parameters are reproducible: the generator perturbed every eigh/QR
// input by a few ulps and recorded how far the parameters moved ("sensitivity"); a checkpoint is
// compared with a tolerance well above that, or skipped when the problem is ill-posed there.
double tolerance_at(const nlohmann::json& c, const std::string& checkpoint) {
  if (!c.contains("sensitivity")) return kTolerance;
  const double sensitivity = c["sensitivity"][checkpoint].get<double>();
  if (sensitivity >= 1e-6) return -1.0;
  return std::max(kTolerance, 100.0 * sensitivity);
}

// SAM over AdamW on one flat buffer, as the sam recipe runs it; per-tensor views for the model.
struct SamRunner {
  at::Tensor flat;
  std::vector<at::Tensor> views;
  SamOptions sam;
  AdamOptions adam;
  AdamState state;

  SamRunner(const std::vector<at::Tensor>& initial, const nlohmann::json& o) {
    std::vector<at::Tensor> pieces;
    for (const auto& p : initial) pieces.push_back(p.reshape(-1));
    flat = at::cat(pieces);
    int64_t offset = 0;
    for (const auto& p : initial) {
      views.push_back(flat.narrow(0, offset, p.numel()).view(p.sizes()));
      offset += p.numel();
    }
    sam = {o["rho"], o["adaptive"].get<int>() != 0};
    adam.beta1 = o["beta1"];
    adam.beta2 = o["beta2"];
    adam.eps = o["eps"];
    adam.weight_decay = o["weight_decay"];
    adam.variant = AdamVariant::adamw;
  }

  static at::Tensor cat(const std::vector<at::Tensor>& tensors) {
    std::vector<at::Tensor> pieces;
    for (const auto& t : tensors) pieces.push_back(t.reshape(-1));
    return at::cat(pieces);
  }

  double step(const Model& model, double lr) {
    auto [loss, grads] = model.loss_and_grads(views);
    at::Tensor saved = sam_ascend(flat, cat(grads), sam);
    auto perturbed = model.loss_and_grads(views);
    flat.copy_(saved);
    adam.lr = lr;
    adam_step(flat, cat(perturbed.second), state, adam);
    return loss;
  }
};

class SotaGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(SotaGolden, MatchesTheReferenceTranscription) {
  const GoldenCase golden = golden_cases().at(GetParam());
  const nlohmann::json& c = *golden.data;
  const std::string algorithm = c["algorithm"].get<std::string>();
  const Model model(*golden.file);
  const auto lrs = c["lr"].get<std::vector<double>>();
  const auto losses = c["losses"].get<std::vector<double>>();
  const auto checkpoints = (*golden.file)["checkpoints"].get<std::vector<int>>();
  ASSERT_EQ(lrs.size(), static_cast<size_t>(checkpoints.back()));
  at::NoGradGuard no_grad;

  if (algorithm == "sam") {
    SamRunner runner(model.initial, c["options"]);
    for (int t = 1; t <= checkpoints.back(); ++t) {
      EXPECT_NEAR(runner.step(model, lrs[t - 1]), losses[t - 1], 1e-10) << "loss at step " << t;
      const std::string key = std::to_string(t);
      if (c["params"].contains(key)) {
        for (size_t i = 0; i < runner.views.size(); ++i)
          EXPECT_TRUE(close_to(runner.views[i], c["params"][key][i])) << "tensor " << i << " after step " << t;
      }
    }
    for (const auto& [name, tensors] : c["state"].items()) {
      std::vector<double> expected;
      for (const auto& t : tensors) {
        const auto v = t.get<std::vector<double>>();
        expected.insert(expected.end(), v.begin(), v.end());
      }
      EXPECT_TRUE(close_to(name == "exp_avg" ? runner.state.exp_avg : runner.state.exp_avg_sq, expected)) << name;
    }
    return;
  }

  std::vector<at::Tensor> params;
  for (const auto& p : model.initial) params.push_back(p.clone());
  const auto infos = describe_tensors(params, model.types);
  const RuleFactory& make = rule_factories().at(algorithm);
  std::unique_ptr<TensorRule> rule = make(c["options"], infos);
  int checked = 0;
  // Losses are reproducible up to the step after the last checkpoint before the first ill-posed one.
  int last_reproducible = checkpoints.back();
  for (size_t k = 0; k < checkpoints.size(); ++k) {
    if (tolerance_at(c, std::to_string(checkpoints[k])) < 0.0) {
      last_reproducible = k == 0 ? 0 : checkpoints[k - 1];
      break;
    }
  }
  for (int t = 1; t <= checkpoints.back(); ++t) {
    auto [loss, grads] = model.loss_and_grads(params);
    if (t <= last_reproducible + 1) {
      EXPECT_NEAR(loss, losses[t - 1], 1e-8) << "loss at step " << t;
    }
    rule->step(params, grads, lrs[t - 1]);
    const std::string key = std::to_string(t);
    if (c["params"].contains(key)) {
      const double tolerance = tolerance_at(c, key);
      if (tolerance > 0.0) ++checked;
      for (size_t i = 0; i < params.size() && tolerance > 0.0; ++i)
        EXPECT_TRUE(close_to(params[i], c["params"][key][i], tolerance)) << "tensor " << i << " after step " << t;
    }
    if (c.contains("eval_params") && c["eval_params"].contains(key)) {
      rule->to_eval_point(params);
      for (size_t i = 0; i < params.size(); ++i)
        EXPECT_TRUE(close_to(params[i], c["eval_params"][key][i])) << "eval point of tensor " << i << " at " << t;
      rule->to_train_point(params);
    }
    if (t == 10) {  // continue from the saved state in a fresh rule
      NamedTensors saved = rule->state();
      rule = make(c["options"], infos);
      rule->load_state(saved);
    }
  }
  EXPECT_GE(checked, 2);
  if (c.value("well_posed", 1) == 0) return;  // the state after the last step is not reproducible

  // The state after the last step: "<name>.<i>" for each tensor that has it, nothing for null.
  std::map<std::string, at::Tensor> state;
  for (const auto& [key, value] : rule->state()) state[key] = value;
  for (const auto& [name, tensors] : c["state"].items()) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const std::string key = state_key(algorithm, name, i, state);
      if (key.empty()) continue;
      if (tensors[i].is_null()) {
        EXPECT_EQ(state.count(key), 0u) << key << " should not exist";
      } else {
        ASSERT_EQ(state.count(key), 1u) << key << " missing";
        EXPECT_TRUE(close_to(state[key], tensors[i], tolerance_at(c, std::to_string(checkpoints.back())))) << key;
      }
    }
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& [name, c] : golden_cases()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllCases, SotaGolden, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(SotaGoldenFiles, CoverEveryStateOfTheArtAlgorithm) {
  std::set<std::string> covered;
  for (const auto& [name, c] : golden_cases()) covered.insert((*c.data)["algorithm"].get<std::string>());
  for (const std::string algorithm : {"lamb", "lion", "adafactor", "ademamix", "muon", "sam",
                                  "schedule_free_adamw", "shampoo", "soap"}) {
    EXPECT_EQ(covered.count(algorithm), 1u) << algorithm << " has no golden case";
  }
}

TEST(SotaRules, RejectUnknownStateEntries) {
  const Model model(golden_files()[0]);
  const auto infos = describe_tensors(model.initial, model.types);
  for (const auto& [name, make] : rule_factories()) {
    nlohmann::json options;
    for (const auto& [case_name, c] : golden_cases()) {
      if ((*c.data)["algorithm"] == name) options = (*c.data)["options"];
    }
    auto rule = make(options, infos);
    EXPECT_THROW(rule->load_state({{"no_such_entry.0", at::zeros({1})}}), InputError) << name;
  }
}

TEST(SotaRules, MuonOrthogonalizesHiddenMatricesOnly) {
  const Model model(golden_files()[0]);
  const auto infos = describe_tensors(model.initial, model.types);
  // conv.weight and fc.weight are hidden matrices; head.weight (the last 2-D weight) is the head.
  std::vector<bool> hidden;
  for (const auto& info : infos) hidden.push_back(MuonRule::is_hidden_matrix(info));
  EXPECT_EQ(hidden, (std::vector<bool>{true, false, true, false, false, false, false}));
  EXPECT_TRUE(infos[5].is_output_head);
  // The iteration drives singular values towards 1 (roughly, in 0.7..1.2 for 5 steps).
  at::Tensor g = at::randn({8, 20}, at::TensorOptions().dtype(at::kDouble));
  at::Tensor s = at::linalg_svdvals(newton_schulz_orthogonalize(g, 5));
  EXPECT_GT(s.min().item<double>(), 0.6);
  EXPECT_LT(s.max().item<double>(), 1.25);
  // Tall matrices are handled through the transpose.
  at::Tensor tall = newton_schulz_orthogonalize(g.t().contiguous(), 5);
  EXPECT_TRUE(at::allclose(tall, newton_schulz_orthogonalize(g, 5).t()));
}

}  // namespace
}  // namespace pacer
