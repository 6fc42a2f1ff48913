// A minimal hand-written LibTorch training loop for the fmnist_mlp workload: the peer that
// bench/speed/step_time.sh measures `pacer run` against. It does what a user would write by hand:
// an nn::Module with three Linear layers, random batches by index_select from a per-epoch
// permutation, mean cross-entropy, and NAdamW (AlgoPerf's variant, decoupled weight decay) as
// a per-parameter loop of tensor ops, with pacer's warmup + cosine learning-rate schedule and
// default hyperparameters. Only the data loading is borrowed from pacer (same normalized data).
//
//   build/bench/bench_minimal_loop --steps 2000 --threads 1
//   {"impl": "libtorch_minimal", "threads": 1, "steps": 2000, ..., "ms_per_step": 1.23}
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "data/fashion_mnist.h"

namespace {

struct Options {
  int64_t steps = 2000;
  int64_t warmup = 50;  // untimed steps before the timed ones
  int threads = 1;
  uint64_t seed = 1;
  std::string data_dir;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--steps")) o.steps = std::atoll(value("--steps"));
    else if (!std::strcmp(argv[i], "--warmup")) o.warmup = std::atoll(value("--warmup"));
    else if (!std::strcmp(argv[i], "--threads")) o.threads = std::atoi(value("--threads"));
    else if (!std::strcmp(argv[i], "--seed")) o.seed = std::strtoull(value("--seed"), nullptr, 10);
    else if (!std::strcmp(argv[i], "--data-dir")) o.data_dir = value("--data-dir");
    else {
      std::fprintf(stderr, "usage: %s [--steps N] [--warmup N] [--threads T] [--seed S] [--data-dir DIR]\n", argv[0]);
      std::exit(2);
    }
  }
  if (o.steps <= 0 || o.warmup < 0 || o.threads <= 0) {
    std::fprintf(stderr, "--steps and --threads must be positive, --warmup non-negative\n");
    std::exit(2);
  }
  return o;
}

struct Net : torch::nn::Module {
  Net() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 128));
    fc2 = register_module("fc2", torch::nn::Linear(128, 128));
    fc3 = register_module("fc3", torch::nn::Linear(128, 10));
  }
  at::Tensor forward(at::Tensor x) {
    x = at::relu(fc1->forward(x));
    x = at::relu(fc2->forward(x));
    return fc3->forward(x);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

// pacer's nadamw defaults for fmnist_mlp (step hint 2000, warmup 5% of it).
constexpr double kLr = 0.002, kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8, kWeightDecay = 0.01;
constexpr int64_t kStepHint = 2000, kWarmupSteps = 100, kBatchSize = 256;

double learning_rate(int64_t step) {
  if (step < kWarmupSteps) return kLr * static_cast<double>(step) / kWarmupSteps;
  const int64_t t = step - kWarmupSteps, decay = kStepHint - kWarmupSteps;
  if (t >= decay) return 0.0;
  return kLr * 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(t) / static_cast<double>(decay)));
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  at::set_num_threads(opt.threads);

  const auto& data = pacer::load_fashion_mnist(pacer::resolve_data_dir(opt.data_dir));
  const at::Tensor x_train = data.train.inputs.reshape({-1, 784});
  const at::Tensor y_train = data.train.targets;
  const int64_t n = x_train.size(0), batches_per_epoch = n / kBatchSize;

  at::manual_seed(opt.seed);
  auto net = std::make_shared<Net>();
  std::vector<at::Tensor> params = net->parameters();
  std::vector<at::Tensor> exp_avg, exp_avg_sq;
  for (const auto& p : params) {
    exp_avg.push_back(at::zeros_like(p));
    exp_avg_sq.push_back(at::zeros_like(p));
  }

  at::Tensor order;
  at::Tensor loss;
  auto train_step = [&](int64_t step) {
    const int64_t within = step % batches_per_epoch;
    if (within == 0) order = at::randperm(n, at::kLong);
    const at::Tensor idx = order.narrow(0, within * kBatchSize, kBatchSize);
    const at::Tensor x = x_train.index_select(0, idx);
    const at::Tensor y = y_train.index_select(0, idx);

    net->zero_grad();
    loss = at::cross_entropy_loss(net->forward(x), y);
    loss.backward();

    at::NoGradGuard no_grad;
    const double lr = learning_rate(step);
    const double t = static_cast<double>(step + 1);
    const double bias_correction1 = 1.0 - std::pow(kBeta1, t);
    const double bias_correction2 = 1.0 - std::pow(kBeta2, t);
    for (size_t i = 0; i < params.size(); ++i) {
      at::Tensor& p = params[i];
      const at::Tensor& g = p.grad();
      p.mul_(1.0 - lr * kWeightDecay);
      exp_avg[i].mul_(kBeta1).add_(g, 1.0 - kBeta1);
      exp_avg_sq[i].mul_(kBeta2).addcmul_(g, g, 1.0 - kBeta2);
      const at::Tensor nesterov = exp_avg[i].mul(kBeta1).add_(g, 1.0 - kBeta1);
      const at::Tensor denom = (exp_avg_sq[i].sqrt() / std::sqrt(bias_correction2)).add_(kEps);
      p.addcdiv_(nesterov, denom, -lr / bias_correction1);
    }
  };

  for (int64_t step = 0; step < opt.warmup; ++step) train_step(step);
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  for (int64_t step = opt.warmup; step < opt.warmup + opt.steps; ++step) train_step(step);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  const double final_loss = loss.item<double>();

  std::printf(
      "{\"impl\": \"libtorch_minimal\", \"threads\": %d, \"warmup_steps\": %lld, \"steps\": %lld, "
      "\"seconds\": %.6f, \"ms_per_step\": %.6f, \"steps_per_s\": %.3f, \"cpu_ms_per_step\": %.6f, "
      "\"final_loss\": %.6f}\n",
      at::get_num_threads(), static_cast<long long>(opt.warmup), static_cast<long long>(opt.steps), seconds,
      1000.0 * seconds / static_cast<double>(opt.steps), static_cast<double>(opt.steps) / seconds,
      1000.0 * cpu_seconds / static_cast<double>(opt.steps), final_loss);
  return 0;
}
