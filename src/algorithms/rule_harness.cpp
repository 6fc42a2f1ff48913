#include "algorithms/rule_harness.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <string>
#include <utility>

#include "algorithms/gradient_computer.h"
#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "core/error.h"
#include "core/seed.h"

namespace pacer {
// Named, not anonymous: RuleHarness::Parts holds them.
namespace rule_harness_detail {

// The parameters as given, nothing else: the rule under test never runs a forward pass (its
// gradient comes from the harness), so forward is an error that says so.
class GivenParameters : public Network {
 public:
  GivenParameters(const std::vector<at::Tensor>& parameters, std::vector<ParamType> types) : types_(std::move(types)) {
    for (size_t i = 0; i < parameters.size(); ++i) {
      register_parameter("p" + std::to_string(i), parameters[i].detach().clone(), /*requires_grad=*/true);
    }
  }
  at::Tensor forward(const at::Tensor&, double) override {
    throw Error("RuleHarness: the network has no forward pass; the rule's gradient comes from the harness "
                "(use step_gradients, not the workload's model_fn)");
  }
  std::vector<ParamType> param_types() const override { return types_; }

 private:
  std::vector<ParamType> types_;
};

// A workload that is only a spec: what an update rule reads of it (the step hint for schedules,
// the reference batch size).
class SpecOnlyWorkload : public Workload {
 public:
  explicit SpecOnlyWorkload(WorkloadSpec spec) : Workload(std::move(spec)) {}
  void load(const WorkloadContext&) override {}
  std::shared_ptr<Network> init_model(uint64_t, const c10::Device&) const override { refuse("init_model"); }
  LossOutput loss_fn(const at::Tensor&, const at::Tensor&, const at::Tensor&, double) const override {
    refuse("loss_fn");
  }
  const TensorDataset& dataset(EvalSplit) const override { refuse("dataset"); }
  Metrics evaluate(Network&, EvalSplit) const override { return {}; }

 private:
  [[noreturn]] static void refuse(const char* what) {
    throw Error(std::string("RuleHarness: the workload has no ") + what + "; an update rule takes its gradient from "
                "step_gradients");
  }
};

// The gradient the test chose, put where step_gradients leaves it: the parameters' .grad().
class ChosenGradients : public GradientComputer {
 public:
  RuleHarness::GradientFn gradient;
  double loss = 0.0;
  int64_t calls = 0;

  at::Tensor backward(const Workload&, Network& network, const Batch&, const LossSettings&) override {
    std::vector<at::Tensor> params = network.parameters();
    at::NoGradGuard no_grad;
    std::vector<at::Tensor> values;
    for (const auto& p : params) values.push_back(p.detach().clone());
    const std::vector<at::Tensor> grads = gradient(values);
    if (grads.size() != params.size()) {
      throw InputError("RuleHarness: " + std::to_string(grads.size()) + " gradients for " +
                       std::to_string(params.size()) + " parameter tensors");
    }
    for (size_t i = 0; i < params.size(); ++i) {
      if (!grads[i].defined() || grads[i].sizes() != params[i].sizes()) {
        throw InputError("RuleHarness: gradient " + std::to_string(i) + " is not of its parameter's shape");
      }
      // In place where a gradient exists: FlatParameters keeps each .grad() a view of one buffer.
      at::Tensor& grad = params[i].mutable_grad();
      if (grad.defined()) {
        grad.copy_(grads[i].detach());
      } else {
        grad = grads[i].detach().to(params[i].options()).clone();
      }
    }
    ++calls;
    return at::scalar_tensor(loss, params.front().options());
  }
};

std::vector<ParamType> default_types(const std::vector<at::Tensor>& parameters) {
  std::vector<ParamType> types;
  for (const auto& p : parameters) types.push_back(p.dim() >= 2 ? ParamType::weight : ParamType::bias);
  return types;
}

}  // namespace rule_harness_detail

struct RuleHarness::Parts {
  Factory make_algorithm;
  std::optional<Hyperparameters> hparams;
  RuleHarnessOptions options;
  std::unique_ptr<TrainingAlgorithm> algorithm;
  std::shared_ptr<rule_harness_detail::GivenParameters> network;
  std::unique_ptr<rule_harness_detail::SpecOnlyWorkload> workload;
  rule_harness_detail::ChosenGradients gradients;
  RunnerState runner;
  Batch batch;
};

RuleHarness::RuleHarness(Factory make_algorithm, std::vector<at::Tensor> parameters,
                         std::optional<Hyperparameters> hparams, RuleHarnessOptions options)
    : parts_(std::make_unique<Parts>()) {
  if (parameters.empty()) throw InputError("RuleHarness: give at least one parameter tensor");
  if (options.param_types.empty()) options.param_types = rule_harness_detail::default_types(parameters);
  if (options.param_types.size() != parameters.size()) {
    throw InputError("RuleHarness: " + std::to_string(options.param_types.size()) + " param_types for " +
                     std::to_string(parameters.size()) + " parameter tensors");
  }
  Parts& p = *parts_;
  p.make_algorithm = std::move(make_algorithm);
  p.hparams = std::move(hparams);
  p.options = options;
  p.algorithm = p.make_algorithm();
  if (!p.algorithm) throw InputError("RuleHarness: the factory made no algorithm");
  p.network = std::make_shared<rule_harness_detail::GivenParameters>(parameters, options.param_types);
  WorkloadSpec spec;
  spec.name = "rule_harness";
  spec.target_metric = "loss";
  spec.higher_is_better = false;
  spec.step_hint = options.step_hint;
  spec.reference_batch_size = options.batch_size;
  spec.time_budget = 1e9;
  p.workload = std::make_unique<rule_harness_detail::SpecOnlyWorkload>(spec);
  p.runner.time_budget = spec.time_budget;
  p.batch.inputs = at::zeros({options.batch_size, 1}, parameters.front().options());
  p.batch.targets = at::zeros({options.batch_size}, parameters.front().options());
  p.algorithm->init_optimizer_state(*p.workload, *p.network, p.hparams ? &*p.hparams : nullptr, options.seed);
}

RuleHarness::~RuleHarness() = default;
RuleHarness::RuleHarness(RuleHarness&&) noexcept = default;
RuleHarness& RuleHarness::operator=(RuleHarness&&) noexcept = default;

UpdateResult RuleHarness::step(const std::vector<at::Tensor>& gradients, double loss) {
  return step([gradients](const std::vector<at::Tensor>&) { return gradients; }, loss);
}

UpdateResult RuleHarness::step(const GradientFn& gradient, double loss) {
  Parts& p = *parts_;
  p.gradients.gradient = gradient;
  p.gradients.loss = loss;
  StepContext context{p.runner.step, derive_seed(p.options.seed, static_cast<uint64_t>(p.runner.step)), &p.runner,
                      &p.gradients};
  UpdateResult result = p.algorithm->update(*p.workload, *p.network, p.batch, context);
  ++p.runner.step;
  return result;
}

void RuleHarness::prepare_for_eval() {
  Parts& p = *parts_;
  p.algorithm->prepare_for_eval(*p.workload, *p.network,
                                StepContext{p.runner.step, derive_seed(p.options.seed, static_cast<uint64_t>(p.runner.step)),
                                            &p.runner, nullptr});
}

std::vector<at::Tensor> RuleHarness::parameters() const {
  std::vector<at::Tensor> out;
  for (const auto& t : parts_->network->parameters()) out.push_back(t.detach().clone());
  return out;
}

int64_t RuleHarness::steps() const { return parts_->runner.step; }
int64_t RuleHarness::gradient_calls() const { return parts_->gradients.calls; }
NamedTensors RuleHarness::state() const { return parts_->algorithm->state(); }

RuleHarness RuleHarness::resumed() const {
  const Parts& p = *parts_;
  RuleHarness copy(p.make_algorithm, parameters(), p.hparams, p.options);
  copy.parts_->algorithm->load_state(state());
  copy.parts_->runner.step = p.runner.step;
  return copy;
}

RuleHarness::Factory algorithm_factory(const std::string& algorithm) {
  const std::string name = resolve_algorithm(algorithm);
  create_algorithm(name);  // an unknown name fails here, not in the first harness
  return [name] { return create_algorithm(name); };
}

TrainingAlgorithm& RuleHarness::algorithm() { return *parts_->algorithm; }
Network& RuleHarness::network() { return *parts_->network; }
const Workload& RuleHarness::workload() const { return *parts_->workload; }

}  // namespace pacer
