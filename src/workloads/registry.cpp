#include "workloads/registry.h"

#include "core/error.h"
#include "models/mlp.h"
#include "models/simple_cnn.h"
#include "workloads/classification_workload.h"
#include "workloads/regression_workload.h"

namespace pacer {
namespace {

// Targets, budgets and step hints: see docs/targets.md for the procedure and the runs behind them.
const std::vector<WorkloadSpec>& catalog() {
  static const std::vector<WorkloadSpec> specs = [] {
    std::vector<WorkloadSpec> s;
    WorkloadSpec mlp;
    mlp.name = "fmnist_mlp";
    mlp.description = "Fashion-MNIST, MLP 784-128-128-10, ReLU";
    mlp.target_metric = "accuracy";
    mlp.higher_is_better = true;
    mlp.validation_target = 0.8957;
    mlp.test_target = 0.8879;
    mlp.max_runtime_sec = 10;
    mlp.step_hint = 2000;
    mlp.eval_period_sec = 0.5;
    mlp.reference_batch_size = 256;
    mlp.targets_source = "docs/targets.md#fmnist_mlp";
    s.push_back(mlp);

    WorkloadSpec tanh = mlp;
    tanh.name = "fmnist_mlp_tanh";
    tanh.description = "Variant of fmnist_mlp: tanh activations";
    tanh.base_workload = "fmnist_mlp";
    tanh.validation_target = 0.8908;
    tanh.test_target = 0.8842;
    tanh.targets_source = "docs/targets.md#fmnist_mlp_tanh";
    s.push_back(tanh);

    WorkloadSpec ln = mlp;
    ln.name = "fmnist_mlp_layernorm";
    ln.description = "Variant of fmnist_mlp: layer norm before each activation";
    ln.base_workload = "fmnist_mlp";
    ln.validation_target = 0.8901;
    ln.test_target = 0.8856;
    ln.targets_source = "docs/targets.md#fmnist_mlp_layernorm";
    s.push_back(ln);

    WorkloadSpec cnn;
    cnn.name = "fmnist_cnn";
    cnn.description = "Fashion-MNIST, simple CNN (conv5x5/32, pool, conv5x5/64, pool, dense 1024, dense 10)";
    cnn.target_metric = "accuracy";
    cnn.higher_is_better = true;
    cnn.validation_target = 0.9161;
    cnn.test_target = 0.9107;
    cnn.max_runtime_sec = 240;
    cnn.step_hint = 1000;
    cnn.eval_period_sec = 20;
    cnn.reference_batch_size = 128;
    cnn.targets_source = "docs/targets.md#fmnist_cnn";
    s.push_back(cnn);

    WorkloadSpec syn;
    syn.name = "synthetic_regression";
    syn.description = "Teacher-student linear regression, 32 inputs, noise std 0.5 (loss floor 0.25)";
    syn.target_metric = "loss";
    syn.higher_is_better = false;
    syn.validation_target = 0.2435;
    syn.test_target = 0.2578;
    syn.max_runtime_sec = 2;
    syn.step_hint = 400;
    syn.eval_period_sec = 0.05;
    syn.reference_batch_size = 64;
    syn.targets_source = "docs/targets.md#synthetic_regression";
    s.push_back(syn);
    return s;
  }();
  return specs;
}

std::string valid_names() {
  std::string names;
  for (const auto& s : catalog()) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

}  // namespace

std::vector<WorkloadSpec> workload_specs() { return catalog(); }

const WorkloadSpec& workload_spec(const std::string& name) {
  for (const auto& s : catalog())
    if (s.name == name) return s;
  throw InputError("unknown workload '" + name + "' (valid: " + valid_names() + ")");
}

std::unique_ptr<Workload> create_workload(const std::string& name) {
  const WorkloadSpec& spec = workload_spec(name);
  if (name == "fmnist_mlp" || name == "fmnist_mlp_tanh" || name == "fmnist_mlp_layernorm") {
    MlpOptions options;
    options.activation = name == "fmnist_mlp_tanh" ? Activation::tanh : Activation::relu;
    options.layer_norm = name == "fmnist_mlp_layernorm";
    return std::make_unique<FashionMnistWorkload>(spec, [options] { return std::make_shared<Mlp>(options); });
  }
  if (name == "fmnist_cnn") {
    return std::make_unique<FashionMnistWorkload>(spec, [] { return std::make_shared<SimpleCnn>(SimpleCnnOptions{}); });
  }
  if (name == "synthetic_regression") {
    return std::make_unique<SyntheticRegressionWorkload>(spec, SyntheticRegressionOptions{});
  }
  throw Error("workload '" + name + "' has a spec but no factory");
}

}  // namespace pacer
