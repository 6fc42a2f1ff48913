#pragma once
// The submission API in C++, mirroring AlgoPerf's: batch size per workload, optimizer-state init
// (untimed), data selection (timed), one update step (timed), prepare-for-eval (timed), an early
// "training complete" signal, and state save/load.
//
//   class MyAlgorithm : public pacer::TrainingAlgorithm {
//     std::string name() const override { return "mine"; }
//     std::vector<pacer::HyperparameterSpec> hyperparameter_specs() const override;
//     void init_optimizer_state(const pacer::Workload&, pacer::Network&, const pacer::Hyperparameters*, uint64_t) override;
//     pacer::UpdateResult update(const pacer::Workload&, pacer::Network&, const pacer::Batch&, const pacer::StepContext&) override;
//     pacer::NamedTensors state() const override;
//     void load_state(const pacer::NamedTensors&) override;
//   };
#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/named_tensors.h"
#include "algorithms/runner_state.h"
#include "core/export.h"
#include "core/hyperparameters.h"
#include "data/batch.h"
#include "data/batch_stream.h"
#include "models/network.h"
#include "workloads/workload.h"

namespace pacer {

struct PACER_API UpdateResult {
  at::Tensor loss;                 // mean training loss of the batch (scalar, detached)
  bool training_complete = false;  // the algorithm asks the runner to stop
  // Optional: the global norm of the gradient the update used, before any clipping (scalar,
  // detached). The runner logs it as train/grad_norm (the playbook's instability signal).
  at::Tensor grad_norm = {};
  // Optional: the algorithm's own measurements of this step, e.g. {"mask_kept", 0.42} for the
  // share of an update a mask keeps. The runner logs those of the step before each eval as
  // "algorithm/<name>" columns (eval_measurements.csv, the study store); a step that reports none
  // keeps the last. Names: letters, digits, _ . -; report each from step 0 on (the CSV's columns
  // are fixed at the first eval, right after step 1).
  Metrics metrics = {};
};

class PACER_API TrainingAlgorithm {
 public:
  virtual ~TrainingAlgorithm() = default;

  virtual std::string name() const = 0;
  virtual std::string description() const { return ""; }
  virtual std::vector<HyperparameterSpec> hyperparameter_specs() const = 0;

  // Global training batch size for this workload.
  virtual int64_t batch_size(const WorkloadSpec& workload) const { return workload.reference_batch_size; }

  // Untimed. `hparams` is resolved (defaults filled, validated) or nullptr under self-tuning.
  virtual void init_optimizer_state(const Workload& workload, Network& network, const Hyperparameters* hparams,
                                    uint64_t seed) = 0;
  // Timed. May not change parameters or optimizer state.
  virtual Batch select_data(BatchStream& stream, const StepContext& /*context*/) { return stream.next(); }
  // Timed: one training step. Take the gradient from step_gradients(context, ...)
  // (algorithms/gradient_computer.h): the framework then runs the algorithm data-parallel
  // (--combine, --virtual-workers, processes) and combines the workers' gradients.
  virtual UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                              const StepContext& context) = 0;
  // Timed: called before every eval; the network as it is afterwards is evaluated.
  virtual void prepare_for_eval(const Workload& /*workload*/, Network& /*network*/, const StepContext& /*context*/) {}

  virtual NamedTensors state() const = 0;
  virtual void load_state(const NamedTensors& state) = 0;
};

}  // namespace pacer
