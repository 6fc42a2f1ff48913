#pragma once
// A training algorithm whose five functions are an AlgoPerf submission written in Python. It
// calls them with AlgoPerf's PyTorch semantics over Pacer's own network, data and loss: the
// parameters Python sees are the network's leaf tensors (one LibTorch, one autograd graph), so
// the submission trains the network in place. Built into the Python bridge (libpacer_python.so),
// which algorithms/python_submission_loader.h loads only when a submission is named.
//
//   auto module = pacer::load_submission_module(file, folder, "nadamw.py", space_file);
//   pacer::register_algorithm(module->name, [module] { return std::make_unique<pacer::PythonSubmission>(module); });
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "algorithms/own_gradient.h"
#include "algorithms/training_algorithm.h"
#include "core/hyperparameters.h"

namespace pacer {

class PythonBinding;  // the trial's workload, network and data as Python reaches them

// One loaded submission file: its module and what Pacer knows of it.
struct SubmissionModule {
  std::string name;  // "<stem>.py"
  std::string file;  // canonical path of submission.py
  std::vector<HyperparameterSpec> hyperparameters;  // from tuning_search_space.json (none without one)
  bool has_prepare_for_eval = true;
  bool takes_train_state = false;
  mutable bool batch_size_warned = false;  // get_batch_size's fallback is said once per process
  pybind11::object module;  // the imported submission
  pybind11::object glue;    // python/_pacer_submission.py
  // Kept to the end of the process (the algorithm registry holds it until static destruction,
  // when the GIL can no longer be taken): its references are let go, not released.
  ~SubmissionModule() {
    module.release();
    glue.release();
  }
};

// Imports the submission (embedding Python on first use). InputError naming the file, the
// function and the line when it cannot be loaded.
std::shared_ptr<SubmissionModule> load_submission_module(const std::string& file, const std::string& folder,
                                                         const std::string& name, const std::string& search_space);

// Its update_params takes its own gradient (loss.backward()): it says so (algorithms/own_gradient.h).
class PythonSubmission : public TrainingAlgorithm, public TakesOwnGradient {
 public:
  explicit PythonSubmission(std::shared_ptr<SubmissionModule> module);
  ~PythonSubmission() override;

  std::string name() const override { return module_->name; }
  std::string description() const override;
  std::vector<HyperparameterSpec> hyperparameter_specs() const override { return module_->hyperparameters; }
  int64_t batch_size(const WorkloadSpec& workload) const override;
  void init_optimizer_state(const Workload& workload, Network& network, const Hyperparameters* hparams,
                            uint64_t seed) override;
  Batch select_data(BatchStream& stream, const StepContext& context) override;
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override;
  void prepare_for_eval(const Workload& workload, Network& network, const StepContext& context) override;
  NamedTensors state() const override;
  void load_state(const NamedTensors& state) override;

 private:
  void init_python_objects(const Hyperparameters* hparams, uint64_t seed);
  pybind11::object rng(uint64_t seed) const;
  pybind11::object eval_results(const StepContext& context);
  pybind11::object train_state(const StepContext& context) const;
  pybind11::dict step_arguments(const StepContext& context);
  // Runs `call` under the GIL; a Python exception becomes a SubmissionError naming `function`.
  template <typename Call>
  auto guarded(const char* function, Call&& call) const;

  std::shared_ptr<SubmissionModule> module_;
  std::unique_ptr<PythonBinding> binding_;
  pybind11::object workload_, container_, hparams_, optimizer_state_, model_state_, input_queue_, param_types_,
      loss_type_, results_;
  size_t results_seen_ = 0;
  // data_selection returned the input queue itself (AlgoPerf's LAWA submissions draw their batches
  // inside update_params): handed to update_params as `batch`, as AlgoPerf's runner does.
  pybind11::object queue_as_batch_;
  // A failure before the first step (init_optimizer_state, get_batch_size's value), raised at
  // the first step so that the trial is recorded like any other failed trial.
  mutable std::string pending_failure_;
};

}  // namespace pacer
