#pragma once
// Unit tests of an update rule against the SDK, without a trial, a dataset or a model: a network
// whose parameters are the tensors given, a gradient the test chooses for each step, and the
// algorithm's own calls (init_optimizer_state, update, prepare_for_eval, state, load_state) made
// as a trial makes them. The test links pacer::testing (<pacer/testing.h>); see
// docs/writing_an_algorithm.md, "Unit-testing an update rule".
//
//   pacer::RuleHarness h([] { return std::make_unique<MySgd>(); }, {at::ones({2}, at::kDouble)},
//                        pacer::Hyperparameters{{"learning_rate", 0.1}});
//   h.step({at::full({2}, 0.5, at::kDouble)});                        // this gradient: p = 1 - 0.1 * 0.5
//   EXPECT_TRUE(h.parameters()[0].allclose(at::full({2}, 0.95, at::kDouble)));
//   h.step([](const std::vector<at::Tensor>& p) { return std::vector<at::Tensor>{2 * p[0]}; });  // of p
//   pacer::RuleHarness resumed = h.resumed();  // a fresh instance from h.state(): must step alike
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/training_algorithm.h"
#include "core/export.h"
#include "core/hyperparameters.h"
#include "models/network.h"
#include "workloads/workload.h"

namespace pacer {

struct PACER_API RuleHarnessOptions {
  // One per parameter tensor (what an algorithm may treat differently, e.g. no weight decay on
  // biases); empty: `weight` for tensors of 2 or more dimensions, `bias` for the others.
  std::vector<ParamType> param_types;
  int64_t step_hint = 1000;  // the workload's, which the baselines' schedules are tuned for
  int64_t batch_size = 1;    // the size of the (empty) batch each update gets
  uint64_t seed = 0;         // init_optimizer_state's seed; each step's seed derives from it
};

class PACER_API RuleHarness {
 public:
  using Factory = std::function<std::unique_ptr<TrainingAlgorithm>()>;
  // The gradient at the given parameters (an algorithm may ask for several per step, SAM at a
  // perturbed point): one tensor per parameter, of its shape.
  using GradientFn = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>& parameters)>;

  // Calls init_optimizer_state with `hparams` (none: self-tuning, the algorithm's defaults).
  // InputError for no parameters or a param_types list of another length.
  RuleHarness(Factory make_algorithm, std::vector<at::Tensor> parameters,
              std::optional<Hyperparameters> hparams = Hyperparameters{}, RuleHarnessOptions options = {});
  ~RuleHarness();
  RuleHarness(RuleHarness&&) noexcept;
  RuleHarness& operator=(RuleHarness&&) noexcept;

  // One update whose gradient is `gradients` (whenever the rule asks); `loss` is the loss that
  // step_gradients returns to it. InputError when the count or a shape does not match.
  UpdateResult step(const std::vector<at::Tensor>& gradients, double loss = 0.0);
  // One update whose gradient is `gradient` of the parameters at the time the rule asks.
  UpdateResult step(const GradientFn& gradient, double loss = 0.0);
  void prepare_for_eval();

  std::vector<at::Tensor> parameters() const;  // copies, in the order given
  int64_t steps() const;                      // updates so far (the next one's context.step)
  int64_t gradient_calls() const;             // how often the rule asked for a gradient
  NamedTensors state() const;                 // the algorithm's
  // A fresh instance from the factory, on a copy of these parameters, initialized alike and then
  // given this one's state() at this step: what a resumed trial does. An algorithm whose state()
  // holds everything its updates depend on steps exactly like this harness from here on.
  RuleHarness resumed() const;

  TrainingAlgorithm& algorithm();
  Network& network();
  const Workload& workload() const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// A factory for what `pacer -a` names: a built-in algorithm ("adamw": to compare a variant with the
// rule it varies), or a plugin library built against this SDK ("./build/libsignum.so",
// "./libmine.so:variant": the library you ship, loaded as pacer loads it, its ABI and layout
// checked). InputError naming it otherwise.
PACER_API RuleHarness::Factory algorithm_factory(const std::string& algorithm);

}  // namespace pacer
