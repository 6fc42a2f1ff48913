#pragma once
// One trial's workload, network and data as a Python submission reaches them: the C++ object
// behind python/_pacer_submission.py's Workload, ParamContainer and InputQueue (exposed to Python
// as the embedded module _pacer_bridge). The forward pass, the loss and the batches are Pacer's.
//
//   pacer::PythonBinding binding(workload, network);
//   binding.set_stream(&stream);
//   pybind11::dict batch = binding.next_batch();   // {"inputs": ..., "targets": ...}
#include <ATen/core/Tensor.h>
#include <pybind11/pybind11.h>

#include "data/batch.h"
#include "data/batch_stream.h"
#include "models/network.h"
#include "workloads/workload.h"

namespace pacer {

class PythonBinding {
 public:
  PythonBinding(const Workload& workload, Network& network) : workload_(workload), network_(network) {}

  void set_stream(BatchStream* stream) { stream_ = stream; }
  void begin_step() { step_loss_ = at::Tensor(); }
  // The mean loss of the last loss_fn call since begin_step (NaN when there was none).
  at::Tensor step_loss() const;
  // The global norm of the gradients the step left in the parameters' .grad() (undefined when
  // there are none): what Pacer logs as train/grad_norm.
  at::Tensor grad_norm() const;

  // Called from Python.
  at::Tensor model_fn(const at::Tensor& inputs, bool train, double dropout_rate, bool update_batch_norm);
  pybind11::tuple loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const pybind11::object& weights,
                          double label_smoothing);
  pybind11::dict next_batch();
  void set_training(bool train) { network_.train(train); }
  bool is_training() const { return network_.is_training(); }
  pybind11::list named_parameters() const;
  pybind11::list named_buffers() const;
  pybind11::list parameter_types() const;  // (name, spec.ParameterType member name)
  pybind11::list batch_norm_layers() const;
  pybind11::dict workload_attributes() const;

  static pybind11::dict to_dict(const Batch& batch);
  static Batch to_batch(const pybind11::object& batch);  // a dict with inputs, targets[, weights]

 private:
  const Workload& workload_;
  Network& network_;
  BatchStream* stream_ = nullptr;
  at::Tensor step_loss_;
};

}  // namespace pacer
