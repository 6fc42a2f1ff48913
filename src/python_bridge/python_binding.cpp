#include "python_bridge/python_binding.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <pybind11/embed.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/nn/modules/batchnorm.h>

#include <cctype>
#include <limits>

#include "core/error.h"
#include "workloads/classification_workload.h"
#include "workloads/language_model_workload.h"
#include "workloads/reconstruction_workload.h"
#include "workloads/regression_workload.h"

namespace py = pybind11;

namespace pacer {
namespace {

// A batch-norm layer as torch.nn.BatchNorm2d shows itself to Python: enough for a submission
// that recomputes the running statistics (reset them, average over batches with momentum None).
struct BatchNormLayer {
  torch::nn::BatchNorm2dImpl* layer;
  std::string name;
};

const char* loss_type_name(const Workload& w) {
  if (dynamic_cast<const FashionMnistReconstructionWorkload*>(&w)) return "MEAN_ABSOLUTE_ERROR";
  if (dynamic_cast<const SyntheticRegressionWorkload*>(&w)) return "MEAN_SQUARED_ERROR";
  return "SOFTMAX_CROSS_ENTROPY";  // Fashion-MNIST classification, the character language model
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

at::Tensor PythonBinding::step_loss() const {
  if (!step_loss_.defined()) return at::scalar_tensor(std::numeric_limits<double>::quiet_NaN(), at::kDouble);
  return step_loss_;
}

at::Tensor PythonBinding::grad_norm() const {
  std::vector<at::Tensor> norms;
  for (const auto& p : network_.parameters()) {
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm());
  }
  return norms.empty() ? at::Tensor() : at::stack(norms).norm();
}

at::Tensor PythonBinding::model_fn(const at::Tensor& inputs, bool train, double dropout_rate, bool update_batch_norm) {
  // AlgoPerf's PyTorch workloads: no gradients in evaluation mode; in training mode without
  // update_batch_norm the running statistics are left as they were.
  std::vector<at::Tensor> saved;
  if (train && !update_batch_norm) {
    for (const auto& b : network_.buffers()) saved.push_back(b.clone());
  }
  at::Tensor outputs;
  {
    py::gil_scoped_release release;  // the forward pass needs no Python
    c10::AutoGradMode grad(train && c10::GradMode::is_enabled());
    outputs = workload_.model_fn(network_, inputs, train ? ForwardMode::train : ForwardMode::eval, dropout_rate);
  }
  if (!saved.empty()) {
    // set_data, not copy_: PyTorch 2.x's batch norm saves the running statistics for its backward,
    // and an in-place copy_ bumps their version, so the submission's loss.backward() failed with
    // "modified by an inplace operation" (Schedule-Free AdamW v2 on fmnist_resnet). The backward of
    // a training-mode batch norm reads only the batch's statistics.
    auto buffers = network_.buffers();
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].set_data(saved[i]);
  }
  return outputs;
}

py::tuple PythonBinding::loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const py::object& weights,
                                 double label_smoothing) {
  const at::Tensor w = weights.is_none() ? at::Tensor() : weights.cast<at::Tensor>();
  const LossOutput loss = workload_.loss_fn(targets, outputs, w, label_smoothing);
  step_loss_ = (loss.summed / loss.n_valid).detach();
  return py::make_tuple(loss.summed, loss.n_valid, loss.per_example);
}

py::dict PythonBinding::to_dict(const Batch& batch) {
  py::dict d;
  d["inputs"] = batch.inputs;
  d["targets"] = batch.targets;
  if (batch.weights.defined()) d["weights"] = batch.weights;
  return d;
}

Batch PythonBinding::to_batch(const py::object& batch) {
  py::dict d = batch.cast<py::dict>();
  Batch b;
  b.inputs = d["inputs"].cast<at::Tensor>();
  b.targets = d["targets"].cast<at::Tensor>();
  if (d.contains("weights") && !d["weights"].is_none()) b.weights = d["weights"].cast<at::Tensor>();
  return b;
}

py::dict PythonBinding::next_batch() {
  if (!stream_) throw Error("input_queue: no training data outside data_selection");
  Batch batch;
  {
    py::gil_scoped_release release;
    batch = stream_->next();
  }
  return to_dict(batch);
}

py::list PythonBinding::named_parameters() const {
  py::list out;
  for (const auto& p : network_.named_parameters()) out.append(py::make_tuple(p.key(), p.value()));
  return out;
}

py::list PythonBinding::named_buffers() const {
  py::list out;
  for (const auto& b : network_.named_buffers()) out.append(py::make_tuple(b.key(), b.value()));
  return out;
}

py::list PythonBinding::parameter_types() const {
  py::list out;
  const auto named = network_.named_parameters();
  const auto types = network_.param_types();
  for (size_t i = 0; i < named.size() && i < types.size(); ++i) {
    out.append(py::make_tuple(named[i].key(), upper(to_string(types[i]))));
  }
  return out;
}

py::list PythonBinding::batch_norm_layers() const {
  py::list out;
  for (const auto& m : network_.named_modules("", /*include_self=*/false)) {
    if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(m.value().get())) {
      out.append(py::cast(BatchNormLayer{bn, m.key()}));
    }
  }
  return out;
}

py::dict PythonBinding::workload_attributes() const {
  const WorkloadSpec& s = workload_.spec();
  py::dict a;
  a["name"] = s.name;
  a["workload_name"] = s.name;
  a["step_hint"] = s.step_hint;
  a["target_metric_name"] = s.target_metric;
  a["higher_is_better"] = s.higher_is_better;
  a["validation_target_value"] = s.validation_target;
  a["test_target_value"] = s.test_target;
  a["max_allowed_runtime_sec"] = s.time_budget;
  a["eval_period_time_sec"] = s.eval_period_sec;
  a["num_train_examples"] = workload_.dataset(EvalSplit::train).size();
  a["num_validation_examples"] = workload_.dataset(EvalSplit::validation).size();
  a["num_test_examples"] = workload_.dataset(EvalSplit::test).size();
  a["loss_type_name"] = loss_type_name(workload_);
  // The output layer: the last two-dimensional weight (what is_output_params names).
  std::string output;
  const auto named = network_.named_parameters();
  const auto types = network_.param_types();
  for (size_t i = 0; i < named.size() && i < types.size(); ++i) {
    if (types[i] == ParamType::weight && named[i].value().dim() == 2) output = named[i].key();
  }
  a["output_param_name"] = output;
  return a;
}

}  // namespace pacer

PYBIND11_EMBEDDED_MODULE(_pacer_bridge, m) {
  using pacer::PythonBinding;
  py::class_<PythonBinding>(m, "Binding")
      .def("model_fn", &PythonBinding::model_fn)
      .def("loss_fn", &PythonBinding::loss_fn)
      .def("next_batch", &PythonBinding::next_batch)
      .def("set_training", &PythonBinding::set_training)
      .def("is_training", &PythonBinding::is_training)
      .def("named_parameters", &PythonBinding::named_parameters)
      .def("named_buffers", &PythonBinding::named_buffers)
      .def("parameter_types", &PythonBinding::parameter_types)
      .def("batch_norm_layers", &PythonBinding::batch_norm_layers);
  py::class_<pacer::BatchNormLayer>(m, "BatchNorm2d")
      .def_property_readonly("name", [](const pacer::BatchNormLayer& b) { return b.name; })
      .def_property_readonly("running_mean", [](const pacer::BatchNormLayer& b) { return b.layer->running_mean; })
      .def_property_readonly("running_var", [](const pacer::BatchNormLayer& b) { return b.layer->running_var; })
      .def_property_readonly("num_batches_tracked",
                             [](const pacer::BatchNormLayer& b) { return b.layer->num_batches_tracked; })
      .def_property(
          "momentum",
          [](const pacer::BatchNormLayer& b) -> py::object {
            const auto m = b.layer->options.momentum();
            return m ? py::object(py::float_(*m)) : py::object(py::none());
          },
          [](pacer::BatchNormLayer& b, const py::object& value) {
            if (value.is_none()) b.layer->options.momentum(c10::nullopt);
            else b.layer->options.momentum(value.cast<double>());
          })
      .def("reset_running_stats", [](pacer::BatchNormLayer& b) { b.layer->reset_running_stats(); })
      .def("__repr__", [](const pacer::BatchNormLayer& b) { return "<Pacer BatchNorm2d " + b.name + ">"; });
}
