// Golden-value tests of the optimizer update rules (algorithms/update_rules.h): a fixed float64
// model is trained for 50 steps with each rule on one flat parameter buffer, and the parameters
// after steps 1, 10 and 50 must match torch.optim (SGD, Adam, AdamW) and a direct transcription
// of the NAdamW formula, as recorded by tools/golden/generate_optimizer_golden.py in
// tests/golden/optimizers.json.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/update_rules.h"
#include "algorithms/update_transforms.h"
#include "core/error.h"

namespace pacer {
namespace {

constexpr double kRelativeTolerance = 1e-10;
constexpr double kAbsoluteTolerance = 1e-10;

const nlohmann::json& golden() {
  static const nlohmann::json data = [] {
    const std::string path = std::string(PACER_SOURCE_DIR) + "/tests/golden/optimizers.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
  }();
  return data;
}

at::Tensor to_tensor(const nlohmann::json& values) {
  const auto v = values.get<std::vector<double>>();
  return at::tensor(at::ArrayRef<double>(v), at::TensorOptions().dtype(at::kDouble));
}

// The generator's model: Linear(in, hidden) -> tanh -> Linear(hidden, out), MSE (mean), with the
// parameters fc1.weight, fc1.bias, fc2.weight, fc2.bias packed row-major into one flat vector.
struct Model {
  int64_t in = 0, hidden = 0, out = 0, batch = 0;
  at::Tensor x, y;

  static Model from_golden() {
    const auto& g = golden();
    Model m;
    m.in = g["model"]["input_size"].get<int64_t>();
    m.hidden = g["model"]["hidden_size"].get<int64_t>();
    m.out = g["model"]["output_size"].get<int64_t>();
    m.batch = g["model"]["batch_size"].get<int64_t>();
    m.x = to_tensor(g["inputs"]).view({m.batch, m.in});
    m.y = to_tensor(g["targets"]).view({m.batch, m.out});
    return m;
  }

  int64_t num_params() const { return hidden * in + hidden + out * hidden + out; }

  // Loss at `params` and its gradient, flattened in the same order as the parameters.
  std::pair<double, at::Tensor> loss_and_grad(const at::Tensor& params) const {
    at::Tensor p = params.detach().clone().requires_grad_(true);
    int64_t offset = 0;
    auto take = [&](std::vector<int64_t> shape) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      at::Tensor view = p.narrow(0, offset, n).view(shape);
      offset += n;
      return view;
    };
    at::Tensor w1 = take({hidden, in}), b1 = take({hidden}), w2 = take({out, hidden}), b2 = take({out});
    at::Tensor prediction = at::linear(at::tanh(at::linear(x, w1, b1)), w2, b2);
    at::Tensor loss = at::mse_loss(prediction, y);
    at::Tensor grad = torch::autograd::grad({loss}, {p})[0];
    return {loss.item<double>(), grad.detach()};
  }
};

// Element-wise |actual - expected| <= atol + rtol * |expected|, reporting the worst element.
::testing::AssertionResult close_to(const at::Tensor& actual, const nlohmann::json& expected_json,
                                    double rtol = kRelativeTolerance, double atol = kAbsoluteTolerance) {
  const auto expected = expected_json.get<std::vector<double>>();
  at::Tensor a = actual.contiguous().to(at::kDouble);
  if (a.numel() != static_cast<int64_t>(expected.size()))
    return ::testing::AssertionFailure() << "size " << a.numel() << " vs expected " << expected.size();
  const double* data = a.data_ptr<double>();
  double worst_excess = 0.0, max_abs_diff = 0.0;
  int64_t worst = -1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const double diff = std::abs(data[i] - expected[i]);
    max_abs_diff = std::max(max_abs_diff, diff);
    const double excess = diff - (atol + rtol * std::abs(expected[i]));
    if (!(excess <= 0.0) && (worst < 0 || excess > worst_excess)) {
      worst_excess = excess;
      worst = static_cast<int64_t>(i);
    }
  }
  if (worst >= 0) {
    std::ostringstream msg;
    msg.precision(17);
    msg << "element " << worst << ": " << data[worst] << " vs expected " << expected[worst]
        << " (max abs diff " << max_abs_diff << ")";
    return ::testing::AssertionFailure() << msg.str();
  }
  return ::testing::AssertionSuccess();
}

const nlohmann::json& find_case(const std::string& name) {
  for (const auto& c : golden()["cases"])
    if (c["name"].get<std::string>() == name) return c;
  throw std::runtime_error("no golden case " + name);
}

AdamVariant variant_of(const std::string& kind) {
  if (kind == "adam") return AdamVariant::adam;
  if (kind == "adamw") return AdamVariant::adamw;
  if (kind == "nadamw") return AdamVariant::nadamw;
  throw std::runtime_error("unknown optimizer kind " + kind);
}

TEST(UpdateRulesGolden, ModelReproducesTheGoldenLossAndGradient) {
  const Model model = Model::from_golden();
  at::Tensor params = to_tensor(golden()["initial_params"]);
  ASSERT_EQ(params.numel(), model.num_params());
  auto [loss, grad] = model.loss_and_grad(params);
  EXPECT_NEAR(loss, golden()["initial_loss"].get<double>(), 1e-13);
  EXPECT_TRUE(close_to(grad, golden()["initial_grad"], 1e-12, 1e-14));
}

// Every case of the golden file is covered by the parameterized test below, and vice versa.
const std::vector<std::string> kCaseNames = {
    "sgd_plain",   "sgd_plain_wd", "sgd_momentum", "sgd_momentum_lr002", "sgd_nesterov",  "sgd_nesterov_lr01",
    "adam",        "adam_b2_099",  "adamw",        "adamw_b2_099",       "nadamw",        "nadamw_b2_099",
};

TEST(UpdateRulesGolden, EveryGoldenCaseIsTested) {
  std::set<std::string> in_file;
  for (const auto& c : golden()["cases"]) in_file.insert(c["name"].get<std::string>());
  EXPECT_EQ(in_file, std::set<std::string>(kCaseNames.begin(), kCaseNames.end()));
}

class UpdateRuleCase : public ::testing::TestWithParam<std::string> {};

TEST_P(UpdateRuleCase, MatchesGoldenParametersAfterSteps1_10_50) {
  const nlohmann::json& c = find_case(GetParam());
  const std::string kind = c["kind"].get<std::string>();
  const nlohmann::json& o = c["options"];
  const Model model = Model::from_golden();

  at::Tensor params = to_tensor(golden()["initial_params"]);
  SgdOptions sgd_options;
  SgdState sgd_state;
  AdamOptions adam_options;
  AdamState adam_state;
  if (kind == "sgd") {
    sgd_options.lr = o["lr"].get<double>();
    sgd_options.momentum = o["momentum"].get<double>();
    sgd_options.nesterov = o["nesterov"].get<bool>();
    sgd_options.weight_decay = o["weight_decay"].get<double>();
  } else {
    adam_options.lr = o["lr"].get<double>();
    adam_options.beta1 = o["beta1"].get<double>();
    adam_options.beta2 = o["beta2"].get<double>();
    adam_options.eps = o["eps"].get<double>();
    adam_options.weight_decay = o["weight_decay"].get<double>();
    adam_options.variant = variant_of(kind);
  }

  // The same rule composed as the recipes run it (issue 46): its weight decay as a transform
  // (algorithms/update_transforms.h) before the rule with weight_decay 0. Bit for bit the same.
  at::Tensor composed_params = params.clone();
  SgdOptions composed_sgd = sgd_options;
  AdamOptions composed_adam = adam_options;
  composed_sgd.weight_decay = composed_adam.weight_decay = 0.0;
  SgdState composed_sgd_state;
  AdamState composed_adam_state;
  const double weight_decay = o["weight_decay"].get<double>();
  std::unique_ptr<TensorRule> decay;
  if (kind == "sgd" || kind == "adam") {
    decay = std::make_unique<CoupledWeightDecay>(weight_decay);
  } else {
    decay = std::make_unique<DecoupledWeightDecay>(weight_decay);
  }

  const auto& snapshots = c["params"];
  int64_t last_step = 0;
  for (const auto& s : golden()["snapshot_steps"]) last_step = std::max(last_step, s.get<int64_t>());
  ASSERT_EQ(last_step, 50);
  int checked = 0;
  double final_loss = 0.0;
  for (int64_t step = 1; step <= last_step; ++step) {
    auto [loss, grads] = model.loss_and_grad(params);
    final_loss = loss;
    const at::Tensor grads_before = grads.clone();
    {
      at::NoGradGuard no_grad;
      if (kind == "sgd") {
        sgd_step(params, grads, sgd_state, sgd_options);
      } else {
        adam_step(params, grads, adam_state, adam_options);
      }
    }
    ASSERT_TRUE(at::equal(grads, grads_before)) << "the update rule modified the gradients at step " << step;
    {
      at::NoGradGuard no_grad;
      at::Tensor composed_grads = grads_before.clone();
      decay->step({composed_params}, {composed_grads}, kind == "sgd" ? sgd_options.lr : adam_options.lr);
      if (kind == "sgd") {
        sgd_step(composed_params, composed_grads, composed_sgd_state, composed_sgd);
      } else {
        adam_step(composed_params, composed_grads, composed_adam_state, composed_adam);
      }
    }
    ASSERT_TRUE(at::equal(composed_params, params)) << GetParam() << ": the composed rule differs at step " << step;
    const std::string key = std::to_string(step);
    if (snapshots.contains(key)) {
      EXPECT_TRUE(close_to(params, snapshots[key])) << GetParam() << " after step " << step;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3);
  if (kind != "sgd") {
    EXPECT_EQ(adam_state.step, last_step);
  }
  // Loss before the 50th update, as recorded by the generator.
  EXPECT_NEAR(final_loss, c["final_loss"].get<double>(), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Golden, UpdateRuleCase, ::testing::ValuesIn(kCaseNames),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// ---------------------------------------------------------------------------------------------
// clip_grad_norm
// ---------------------------------------------------------------------------------------------
at::Tensor doubles(std::vector<double> v) {
  return at::tensor(at::ArrayRef<double>(v), at::TensorOptions().dtype(at::kDouble));
}

TEST(ClipGradNorm, ScalesDownToMaxNormAndReturnsTheNormBefore) {
  at::Tensor g = doubles({3.0, -4.0, 0.0});
  const double norm = clip_grad_norm(g, 1.0);
  EXPECT_DOUBLE_EQ(norm, 5.0);
  EXPECT_TRUE(at::allclose(g, doubles({0.6, -0.8, 0.0}), 0.0, 1e-15));
  EXPECT_NEAR(g.norm().item<double>(), 1.0, 1e-15);
}

TEST(ClipGradNorm, LeavesGradientsAtOrBelowMaxNormUntouched) {
  at::Tensor g = doubles({3.0, -4.0, 0.0});
  EXPECT_DOUBLE_EQ(clip_grad_norm(g, 10.0), 5.0);
  EXPECT_TRUE(at::equal(g, doubles({3.0, -4.0, 0.0})));
  EXPECT_DOUBLE_EQ(clip_grad_norm(g, 5.0), 5.0);  // exactly at the bound: not scaled
  EXPECT_TRUE(at::equal(g, doubles({3.0, -4.0, 0.0})));
}

TEST(ClipGradNorm, ZeroGradientsStayZero) {
  at::Tensor g = at::zeros({7}, at::kDouble);
  EXPECT_EQ(clip_grad_norm(g, 1.0), 0.0);
  EXPECT_TRUE(at::equal(g, at::zeros({7}, at::kDouble)));
  EXPECT_EQ(clip_grad_norm(g, 0.0), 0.0);
  EXPECT_TRUE(at::equal(g, at::zeros({7}, at::kDouble)));
}

TEST(ClipGradNorm, GoldenGradientKeepsItsDirection) {
  at::Tensor g = to_tensor(golden()["initial_grad"]);
  const at::Tensor original = g.clone();
  const double norm_before = original.norm().item<double>();
  const double max_norm = 0.25 * norm_before;
  EXPECT_NEAR(clip_grad_norm(g, max_norm), norm_before, 1e-15 * norm_before);
  EXPECT_NEAR(g.norm().item<double>(), max_norm, 1e-14 * max_norm);
  EXPECT_TRUE(at::allclose(g, original * 0.25, 1e-14, 0.0));
}

// Clipping as a transform (algorithms/update_transforms.h): on the flat buffer it is
// clip_grad_norm_if bit for bit; on per-tensor views the same norm and factor up to rounding.
TEST(GlobalNormClipTransform, FlatBufferIsClipGradNormIfAndViewsAgree) {
  const at::Tensor grads = doubles({3.0, -4.0, 12.0, 0.5, -7.25});
  for (const double max_norm : {0.0, 1.0, 100.0}) {
    at::Tensor expected = grads.clone();
    const at::Tensor expected_norm = clip_grad_norm_if(expected, max_norm);
    GlobalNormClip flat_clip(max_norm);
    at::Tensor flat = grads.clone();
    flat_clip.step({flat}, {flat}, 0.1);
    EXPECT_TRUE(at::equal(flat, expected)) << max_norm;
    EXPECT_TRUE(at::equal(flat_clip.norm(), expected_norm)) << max_norm;

    GlobalNormClip tensor_clip(max_norm);
    at::Tensor buffer = grads.clone();
    tensor_clip.step({}, {buffer.narrow(0, 0, 2), buffer.narrow(0, 2, 3)}, 0.1);
    EXPECT_NEAR(tensor_clip.norm().item<double>(), expected_norm.item<double>(), 1e-12) << max_norm;
    EXPECT_TRUE(at::allclose(buffer, expected, 1e-14, 1e-14)) << max_norm;
  }
}

TEST(GlobalNormClipTransform, TransformsHoldNoStateAndRefuseSome) {
  DecoupledWeightDecay decay(0.1);
  EXPECT_TRUE(decay.state().empty());
  decay.load_state({});
  EXPECT_THROW(decay.load_state({{"exp_avg", at::zeros({1})}}), InputError);
  at::Tensor p = doubles({2.0}), g = doubles({1.0});
  decay.step({p}, {g}, 0.5);  // p *= 1 - 0.5 * 0.1
  EXPECT_DOUBLE_EQ(p.item<double>(), 2.0 * 0.95);
  CoupledWeightDecay l2(0.1);
  l2.step({p}, {g}, 0.5);  // g += 0.1 * p, p unchanged
  EXPECT_DOUBLE_EQ(g.item<double>(), 1.0 + 0.1 * 1.9);
  EXPECT_DOUBLE_EQ(p.item<double>(), 1.9);
}

TEST(ClipGradNorm, WorksOnFloat32) {
  at::Tensor g = at::full({4}, 2.0, at::kFloat);  // norm 4
  EXPECT_NEAR(clip_grad_norm(g, 2.0), 4.0, 1e-6);
  EXPECT_TRUE(at::allclose(g, at::full({4}, 1.0, at::kFloat), 1e-6, 1e-6));
}

}  // namespace
}  // namespace pacer
