// End-to-end properties of real training: flat parameter buffers, determinism, baselines learn.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <torch/csrc/autograd/autograd.h>

#include <filesystem>

#include "algorithms/registry.h"
#include "algorithms/tensorwise_algorithm.h"
#include "algorithms/training_algorithm.h"
#include "models/flat_parameters.h"
#include "models/mlp.h"
#include "core/error.h"
#include "train/trial_runner.h"
#include "workloads/registry.h"

namespace pacer {
namespace {

bool have_fashion_mnist() { return std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"); }

TEST(FlatParameters, GradientsLandInTheFlatBufferAndUpdatesReachTheModel) {
  at::manual_seed(0);
  Mlp reference(MlpOptions{6, {5}, 3, Activation::tanh, true});
  at::manual_seed(0);
  Mlp flat_net(MlpOptions{6, {5}, 3, Activation::tanh, true});
  FlatParameters flat(flat_net);
  at::Tensor x = at::randn({4, 6});
  for (int round = 0; round < 2; ++round) {  // the second round checks zero_grad really resets
    flat.zero_grad();
    for (auto& p : reference.parameters()) p.mutable_grad() = at::Tensor();
    torch::autograd::backward({reference.forward(x, 0.0).pow(2).sum()});
    torch::autograd::backward({flat_net.forward(x, 0.0).pow(2).sum()});
    std::vector<at::Tensor> grads;
    for (auto& p : reference.parameters()) grads.push_back(p.grad().reshape({-1}));
    EXPECT_TRUE(at::allclose(at::cat(grads), flat.grads(), 1e-6, 1e-7)) << "round " << round;
  }
  {
    at::NoGradGuard no_grad;
    flat.values().add_(1.0);
  }
  EXPECT_TRUE(at::allclose(flat_net.parameters()[0], reference.parameters()[0] + 1.0));
  // Param types follow parameters(): weight, bias, layer norm scale, bias, then the output layer.
  EXPECT_EQ(flat.slices()[2].type, ParamType::layer_norm_scale);
  at::Tensor bias_mask = flat.mask_for({ParamType::bias});
  EXPECT_EQ(bias_mask.sum().item<double>(), 5 + 3);
}

TrialResult run(const std::string& workload_name, const std::string& algorithm_name, uint64_t seed, int64_t steps,
                int64_t every, const std::string& out = "", const Hyperparameters& hparams = {}) {
  auto workload = create_workload(workload_name);
  auto algorithm = create_algorithm(algorithm_name);
  TrialOptions options;
  options.seed = seed;
  options.spec.device = "cpu";
  options.spec.max_steps = steps;
  options.spec.eval_every_steps = every;
  options.spec.stop_at_targets = false;
  options.out_dir = out;
  return run_trial(*workload, *algorithm, hparams, options);
}

void expect_same_metrics(const TrialResult& a, const TrialResult& b) {
  ASSERT_EQ(a.evals.size(), b.evals.size());
  for (size_t i = 0; i < a.evals.size(); ++i) {
    EXPECT_EQ(a.evals[i].step, b.evals[i].step);
    EXPECT_EQ(a.evals[i].metrics, b.evals[i].metrics) << "eval " << i;
  }
}

TEST(Training, SameSeedGivesIdenticalMetricsOnFashionMnist) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  TrialResult a = run("fmnist_mlp", "nadamw", 7, 60, 20);
  TrialResult b = run("fmnist_mlp", "nadamw", 7, 60, 20);
  expect_same_metrics(a, b);
  TrialResult c = run("fmnist_mlp", "nadamw", 8, 60, 20);
  EXPECT_NE(a.evals.back().metrics.at("validation/loss"), c.evals.back().metrics.at("validation/loss"));
  // 60 steps of NAdamW already learn something real: far above chance (0.1).
  EXPECT_GT(a.evals.back().metrics.at("validation/accuracy"), 0.6);
}

TEST(Training, EveryBaselineLearnsTheSyntheticWorkload) {
  // Defaults are set for networks; three rules whose step does not scale with the gradient need
  // bigger steps for a linear model whose weights grow from near zero in 400 steps: Lion (every
  // coordinate moves by exactly lr), Adafactor (a step relative to the weights' RMS, floored at
  // epsilon2) and SOAP (Adam's lr 3e-3).
  std::map<std::string, Hyperparameters> overrides;
  overrides["lion"].set("learning_rate", 0.01);
  overrides["adafactor"].set("epsilon2", 0.1);
  overrides["adafactor"].set("learning_rate", 1.0);
  overrides["soap"].set("learning_rate", 0.03);
  for (const auto& name : algorithm_names()) {
    TrialResult r = run("synthetic_regression", name, 1, 400, 100, "", overrides[name]);
    ASSERT_FALSE(r.evals.empty());
    const double first = r.evals.front().metrics.at("validation/loss");
    const double last = r.evals.back().metrics.at("validation/loss");
    EXPECT_LT(last, 0.5 * first) << name;
    EXPECT_FALSE(r.diverged()) << name;
  }
}

TEST(Training, HugeLearningRateDivergesAsAResult) {
  auto workload = create_workload("synthetic_regression");
  auto algorithm = create_algorithm("sgd");
  Hyperparameters hp;
  hp.set("learning_rate", 90.0);
  hp.set("warmup_factor", 0.0);
  TrialOptions options;
  options.spec.device = "cpu";
  options.spec.max_steps = 300;
  TrialResult r = run_trial(*workload, *algorithm, hp, options);
  EXPECT_EQ(r.status, TrialStatus::diverged);
  EXPECT_LT(r.steps, 300);
}

TEST(Training, OptimizerStateRoundTrips) {
  auto workload = create_workload("synthetic_regression");
  workload->load({});
  for (const auto& name : algorithm_names()) {
    auto net = workload->init_model(1, at::kCPU);
    auto algorithm = create_algorithm(name);
    algorithm->init_optimizer_state(*workload, *net, nullptr, 0);
    BatchStream stream(workload->dataset(EvalSplit::train), {64, 1, 0, 1, 0});
    RunnerState state;
    for (int64_t step = 0; step < 3; ++step) algorithm->update(*workload, *net, stream.next(), {step, 0, &state});
    NamedTensors saved = algorithm->state();
    auto restored_net = workload->init_model(2, at::kCPU);  // other initial values, overwritten by the state
    auto restored = create_algorithm(name);
    restored->init_optimizer_state(*workload, *restored_net, nullptr, 0);
    restored->load_state(saved);
    Batch batch = stream.next();
    algorithm->update(*workload, *net, batch, {3, 0, &state});
    restored->update(*workload, *restored_net, batch, {3, 0, &state});
    EXPECT_TRUE(at::equal(net->parameters()[0], restored_net->parameters()[0])) << name;
  }
}

// One update-rule shape (issue 46): every built-in is a recipe of TensorwiseAlgorithm (SAM's with
// its own gradient point). The first generation and SAM moved onto it keeping their state's names,
// so checkpoints written before still resume, and their error for a foreign entry.
TEST(Training, EveryBuiltinIsARecipeOfTheOneRuleShape) {
  for (const auto& name : algorithm_names()) {
    const auto algorithm = create_algorithm(name);
    EXPECT_NE(dynamic_cast<TensorwiseAlgorithm*>(algorithm.get()), nullptr) << name;
  }
  auto workload = create_workload("synthetic_regression");
  workload->load({});
  const std::map<std::string, std::vector<std::string>> names = {
      {"sgd", {"params"}},
      {"momentum", {"params", "momentum_buffer"}},
      {"nesterov", {"params", "momentum_buffer"}},
      {"adam", {"params", "step", "exp_avg", "exp_avg_sq"}},
      {"adamw", {"params", "step", "exp_avg", "exp_avg_sq"}},
      {"nadamw", {"params", "step", "exp_avg", "exp_avg_sq"}},
      {"sam", {"params", "step", "exp_avg", "exp_avg_sq"}}};
  for (const auto& [name, expected] : names) {
    auto net = workload->init_model(1, at::kCPU);
    auto algorithm = create_algorithm(name);
    algorithm->init_optimizer_state(*workload, *net, nullptr, 0);
    BatchStream stream(workload->dataset(EvalSplit::train), {64, 1, 0, 1, 0});
    RunnerState state;
    algorithm->update(*workload, *net, stream.next(), {0, 0, &state});
    std::vector<std::string> got;
    for (const auto& entry : algorithm->state()) got.push_back(entry.first);
    EXPECT_EQ(got, expected) << name;
    try {
      algorithm->load_state({{"nope", at::zeros({1})}});
      ADD_FAILURE() << name << ": a foreign entry was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), name + ": unknown optimizer state entry 'nope'");
    }
  }
}

}  // namespace
}  // namespace pacer
