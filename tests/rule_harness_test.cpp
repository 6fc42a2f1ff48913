// RuleHarness (algorithms/rule_harness.h, the SDK's <pacer/testing.h>): an update rule driven with
// the gradients a test chooses, on the parameters it gives, as a trial drives it: the built-ins'
// first steps against their closed forms, a resume from state() against an uninterrupted run (and
// a rule whose state() forgets its momentum caught by it), SAM's two gradients per step, and the
// refusals. The out-of-tree use, against an installed SDK, is PluginTest's.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "algorithms/gradient_computer.h"
#include "algorithms/rule_harness.h"
#include "core/error.h"
#include "support/input_error.h"

namespace pacer {
namespace {

using testing::input_error_of;

at::Tensor full(std::vector<int64_t> shape, double value) { return at::full(shape, value, at::kDouble); }

// Plain momentum whose state() can leave its momentum out: the mistake a resume test must catch.
class Momentum : public TrainingAlgorithm {
 public:
  explicit Momentum(bool saves_momentum) : saves_momentum_(saves_momentum) {}
  std::string name() const override { return "momentum_under_test"; }
  std::vector<HyperparameterSpec> hyperparameter_specs() const override { return {}; }
  void init_optimizer_state(const Workload&, Network& network, const Hyperparameters*, uint64_t) override {
    momentum_.clear();
    for (const auto& p : network.parameters()) momentum_.push_back(at::zeros_like(p));
  }
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override {
    at::Tensor loss = step_gradients(context, workload, network, batch, {});
    at::NoGradGuard no_grad;
    auto params = network.parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      momentum_[i].mul_(0.9).add_(params[i].grad());
      params[i].add_(momentum_[i], -0.1);
    }
    return {loss};
  }
  NamedTensors state() const override {
    NamedTensors state;
    if (saves_momentum_) {
      for (size_t i = 0; i < momentum_.size(); ++i) state.emplace_back("m" + std::to_string(i), momentum_[i].clone());
    }
    return state;
  }
  void load_state(const NamedTensors& state) override {
    for (size_t i = 0; i < state.size(); ++i) momentum_[i].copy_(state[i].second);
  }

 private:
  bool saves_momentum_;
  std::vector<at::Tensor> momentum_;
};

TEST(RuleHarness, TheBuiltInsFirstStepsMatchTheirClosedForms) {
  // SGD without warmup: p = 1 - 0.1 * 0.5 on the first step.
  RuleHarness sgd(algorithm_factory("sgd"), {full({2, 3}, 1.0), full({3}, 2.0)},
                  Hyperparameters{{"learning_rate", 0.1}, {"warmup_factor", 0.0}});
  sgd.step({full({2, 3}, 0.5), full({3}, -1.0)});
  EXPECT_EQ(sgd.steps(), 1);
  EXPECT_EQ(sgd.gradient_calls(), 1);
  EXPECT_TRUE(sgd.parameters()[0].allclose(full({2, 3}, 0.95), 1e-6, 1e-6)) << sgd.parameters()[0];
  EXPECT_TRUE(sgd.parameters()[1].allclose(full({3}, 2.1), 1e-6, 1e-6)) << sgd.parameters()[1];

  // AdamW's first step is lr * g / (|g| + eps) after bias correction, lr * sign(g), after the
  // decoupled weight decay p * (1 - lr * wd) on every parameter (AlgoPerf's baseline decays biases too).
  RuleHarness adamw(algorithm_factory("adamw"), {full({2, 2}, 1.0), full({2}, 1.0)},
                    Hyperparameters{{"learning_rate", 0.01}, {"warmup_factor", 0.0}, {"weight_decay", 0.5}});
  adamw.step({full({2, 2}, 3.0), full({2}, -0.25)});
  const double weight = adamw.parameters()[0][0][0].item<double>(), bias = adamw.parameters()[1][0].item<double>();
  EXPECT_NEAR(weight, 1.0 - 0.01 * 0.5 - 0.01, 1e-6);
  EXPECT_NEAR(bias, 1.0 - 0.01 * 0.5 + 0.01, 1e-6);
}

TEST(RuleHarness, AResumeFromStateContinuesExactlyAndAForgottenMomentumIsCaught) {
  // The gradient of 0.5 * |p|^2 at the parameters the rule asks at.
  const RuleHarness::GradientFn quadratic = [](const std::vector<at::Tensor>& p) {
    return std::vector<at::Tensor>{p[0].clone()};
  };
  for (const bool saves : {true, false}) {
    RuleHarness whole([saves] { return std::make_unique<Momentum>(saves); }, {full({4}, 1.0)});
    for (int i = 0; i < 3; ++i) whole.step(quadratic);
    RuleHarness resumed = whole.resumed();
    EXPECT_EQ(resumed.steps(), 3);
    for (int i = 0; i < 3; ++i) {
      whole.step(quadratic);
      resumed.step(quadratic);
    }
    EXPECT_EQ(whole.parameters()[0].equal(resumed.parameters()[0]), saves)
        << "saves momentum: " << saves << "\n" << whole.parameters()[0] << resumed.parameters()[0];
  }
  // Every built-in's state() is complete under the same test (AdamW here; pacer check runs all).
  RuleHarness adamw(algorithm_factory("adamw"), {full({3, 2}, 1.0)}, Hyperparameters{{"warmup_factor", 0.0}});
  for (int i = 0; i < 4; ++i) adamw.step(quadratic);
  RuleHarness resumed = adamw.resumed();
  for (int i = 0; i < 4; ++i) {
    adamw.step(quadratic);
    resumed.step(quadratic);
  }
  EXPECT_TRUE(adamw.parameters()[0].equal(resumed.parameters()[0]));
}

TEST(RuleHarness, SamAsksForTwoGradientsPerStepAtTheParametersOfTheMoment) {
  std::vector<double> asked_at;
  RuleHarness sam(algorithm_factory("sam"), {full({2}, 1.0)},
                  Hyperparameters{{"warmup_factor", 0.0}, {"rho", 0.1}, {"weight_decay", 0.0}});
  sam.step([&asked_at](const std::vector<at::Tensor>& p) {
    asked_at.push_back(p[0][0].item<double>());
    return std::vector<at::Tensor>{p[0].clone()};
  });
  EXPECT_EQ(sam.gradient_calls(), 2);
  ASSERT_EQ(asked_at.size(), 2u);
  EXPECT_DOUBLE_EQ(asked_at[0], 1.0);
  // The second at p + rho * g / |g|: 1 + 0.1 / sqrt(2).
  EXPECT_NEAR(asked_at[1], 1.0 + 0.1 / std::sqrt(2.0), 1e-6);
}

TEST(RuleHarness, MismatchedGradientsParamTypesAndUnknownAlgorithmsAreRefusedNamingThem) {
  RuleHarness h(algorithm_factory("sgd"), {full({2}, 1.0), full({2, 2}, 1.0)});
  EXPECT_NE(input_error_of([&] { h.step({full({2}, 1.0)}); }).find("1 gradients for 2 parameter tensors"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { h.step({full({2}, 1.0), full({4}, 1.0)}); }).find("gradient 1"), std::string::npos);
  RuleHarnessOptions options;
  options.param_types = {ParamType::bias};
  EXPECT_NE(input_error_of([&] { RuleHarness(algorithm_factory("sgd"), {full({2}, 1.0), full({2}, 1.0)}, {}, options); })
                .find("1 param_types for 2 parameter tensors"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { algorithm_factory("adamm"); }).find("adamm"), std::string::npos);
  EXPECT_NE(input_error_of([] { RuleHarness(algorithm_factory("sgd"), {}); }).find("at least one"), std::string::npos);
}

}  // namespace
}  // namespace pacer
