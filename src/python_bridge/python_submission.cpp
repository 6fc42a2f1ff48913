#include "python_bridge/python_submission.h"

#include <ATen/ATen.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "python_bridge/python_binding.h"

namespace py = pybind11;

namespace pacer {
namespace {

// The message of a Python exception: glue.describe_exception's file, function, line and
// traceback, or the text of a SubmissionFailure Pacer's own checks raised.
std::string describe(const SubmissionModule& m, const py::error_already_set& e, const char* function) {
  try {
    if (py::isinstance(e.value(), m.glue.attr("SubmissionFailure"))) {
      return m.file + ": " + py::str(e.value()).cast<std::string>();
    }
    return m.glue.attr("describe_exception")(e.value(), e.trace(), m.file, function).cast<std::string>();
  } catch (const py::error_already_set&) {
    return m.file + ": " + function + ": " + e.what();
  }
}

}  // namespace

PythonSubmission::PythonSubmission(std::shared_ptr<SubmissionModule> module) : module_(std::move(module)) {}

PythonSubmission::~PythonSubmission() {
  py::gil_scoped_acquire gil;
  for (py::object* o : {&workload_, &container_, &hparams_, &optimizer_state_, &model_state_, &input_queue_,
                        &param_types_, &loss_type_, &results_, &queue_as_batch_}) {
    *o = py::object();
  }
}

template <typename Call>
auto PythonSubmission::guarded(const char* function, Call&& call) const {
  py::gil_scoped_acquire gil;
  try {
    return call();
  } catch (py::error_already_set& e) {
    throw SubmissionError(describe(*module_, e, function));
  }
}

std::string PythonSubmission::description() const { return "AlgoPerf submission in Python: " + module_->file; }

int64_t PythonSubmission::batch_size(const WorkloadSpec& workload) const {
  py::gil_scoped_acquire gil;
  try {
    py::object size = module_->module.attr("get_batch_size")(workload.name);
    return module_->glue.attr("check_batch_size")(size, workload.name).cast<int64_t>();
  } catch (py::error_already_set& e) {
    if (py::isinstance(e.value(), module_->glue.attr("SubmissionFailure"))) {
      pending_failure_ = describe(*module_, e, "get_batch_size");
      return workload.reference_batch_size;
    }
    // Submissions raise for workloads they were not written for: the workload's own size then.
    if (module_->batch_size_warned) return workload.reference_batch_size;
    module_->batch_size_warned = true;
    const std::string why = module_->glue.attr("short_description")(e.value()).cast<std::string>();
    std::fprintf(stderr, "pacer: warning: %s: get_batch_size('%s') raised %s; using the workload's default batch size %lld\n",
                 module_->file.c_str(), workload.name.c_str(), why.c_str(),
                 static_cast<long long>(workload.reference_batch_size));
    return workload.reference_batch_size;
  }
}

py::object PythonSubmission::rng(uint64_t seed) const { return module_->glue.attr("make_rng")(seed); }

void PythonSubmission::init_optimizer_state(const Workload& workload, Network& network, const Hyperparameters* hparams,
                                            uint64_t seed) {
  binding_ = std::make_unique<PythonBinding>(workload, network);
  try {
    init_python_objects(hparams, seed);
  } catch (const SubmissionError& e) {
    pending_failure_ = e.what();
  }
}

void PythonSubmission::init_python_objects(const Hyperparameters* hparams, uint64_t seed) {
  guarded("init_optimizer_state", [&] {
    py::object glue = module_->glue;
    workload_ = glue.attr("Workload")(py::cast(binding_.get(), py::return_value_policy::reference),
                                      binding_->workload_attributes());
    container_ = glue.attr("ParamContainer")(py::cast(binding_.get(), py::return_value_policy::reference));
    input_queue_ = glue.attr("InputQueue")(py::cast(binding_.get(), py::return_value_policy::reference));
    param_types_ = workload_.attr("model_params_types");
    loss_type_ = workload_.attr("loss_type");
    results_ = py::list();
    results_seen_ = 0;
    model_state_ = py::none();
    py::dict values;
    if (hparams) {
      // As AlgoPerf hands them: a float, a bool or a str.
      for (const auto& [key, value] : hparams->items()) {
        if (value.is_text()) values[py::str(key)] = py::str(value.text_value());
        else if (value.kind() == HyperparameterValue::Kind::boolean) values[py::str(key)] = py::bool_(value.number() != 0.0);
        else values[py::str(key)] = py::float_(value.number());
      }
    }
    hparams_ = hparams ? glue.attr("make_hyperparameters")(values) : py::none();
    optimizer_state_ = module_->module.attr("init_optimizer_state")(workload_, container_, model_state_, hparams_,
                                                                     rng(seed));
  });
}

Batch PythonSubmission::select_data(BatchStream& stream, const StepContext& context) {
  if (!pending_failure_.empty()) throw SubmissionError(pending_failure_);
  binding_->set_stream(&stream);
  return guarded("data_selection", [&] {
    py::object batch = module_->module.attr("data_selection")(workload_, input_queue_, optimizer_state_, container_,
                                                                model_state_, hparams_, context.step,
                                                                rng(context.step_seed));
    queue_as_batch_ = py::object();
    if (batch.is(input_queue_)) {  // the queue itself: update_params draws from it
      queue_as_batch_ = batch;
      return Batch{};
    }
    module_->glue.attr("check_batch")(batch, "data_selection");
    return PythonBinding::to_batch(batch);
  });
}

py::object PythonSubmission::eval_results(const StepContext& context) {
  py::list results = results_.cast<py::list>();
  if (!context.state) return results;
  for (; results_seen_ < context.state->evals.size(); ++results_seen_) {
    const EvalRecord& e = context.state->evals[results_seen_];
    py::dict metrics;
    for (const auto& [key, value] : e.metrics) metrics[py::str(key)] = value;
    results.append(py::make_tuple(e.step, metrics));
  }
  return results;
}

py::object PythonSubmission::train_state(const StepContext& context) const {
  py::dict s;
  const RunnerState* r = context.state;  // AlgoPerf's train_state keys ("goal" = target)
  s["accumulated_submission_time"] = r ? r->accumulated_submission_time : 0.0;
  s["accumulated_eval_time"] = r ? r->accumulated_eval_time : 0.0;
  s["accumulated_logging_time"] = r ? r->accumulated_logging_time : 0.0;
  s["last_eval_time"] = r ? r->last_eval_time : 0.0;
  s["validation_goal_reached"] = r ? r->validation_target_reached : false;
  s["test_goal_reached"] = r ? r->test_target_reached : false;
  s["is_time_remaining"] = r ? r->time_remaining() > 0.0 : true;
  s["training_complete"] = false;
  return py::module_::import("types").attr("MappingProxyType")(s);  // read-only, as AlgoPerf hands it
}

// The keyword arguments update_params and prepare_for_eval share, as AlgoPerf's runner passes them.
py::dict PythonSubmission::step_arguments(const StepContext& context) {
  py::dict kwargs;
  kwargs["workload"] = workload_;
  kwargs["current_param_container"] = container_;
  kwargs["current_params_types"] = param_types_;
  kwargs["model_state"] = model_state_;
  kwargs["hyperparameters"] = hparams_;
  kwargs["loss_type"] = loss_type_;
  kwargs["optimizer_state"] = optimizer_state_;
  kwargs["eval_results"] = eval_results(context);
  kwargs["global_step"] = context.step;
  kwargs["rng"] = rng(context.step_seed);
  return kwargs;
}

UpdateResult PythonSubmission::update(const Workload& /*workload*/, Network& /*network*/, const Batch& batch,
                                      const StepContext& context) {
  return guarded("update_params", [&] {
    binding_->begin_step();
    py::dict kwargs = step_arguments(context);
    kwargs["batch"] = queue_as_batch_ ? queue_as_batch_ : PythonBinding::to_dict(batch);
    if (module_->takes_train_state) kwargs["train_state"] = train_state(context);
    UpdateResult result;
    try {
      py::object returned = module_->module.attr("update_params")(**kwargs);
      optimizer_state_ = module_->glue.attr("check_update_return")(returned, container_, "update_params");
      model_state_ = returned[py::int_(2)];
    } catch (py::error_already_set& e) {
      // AlgoPerf's way for a submission to say it is done.
      if (!py::isinstance(e.value(), py::module_::import("algoperf.spec").attr("TrainingCompleteError"))) throw;
      result.training_complete = true;
    }
    // The loss Pacer logs: the mean of the last workload.loss_fn call of this step.
    result.loss = binding_->step_loss();
    result.grad_norm = binding_->grad_norm();
    return result;
  });
}

void PythonSubmission::prepare_for_eval(const Workload& /*workload*/, Network& /*network*/, const StepContext& context) {
  if (!module_->has_prepare_for_eval) return;
  guarded("prepare_for_eval", [&] {
    py::object returned = module_->module.attr("prepare_for_eval")(**step_arguments(context));
    optimizer_state_ = module_->glue.attr("check_update_return")(returned, container_, "prepare_for_eval");
    model_state_ = returned[py::int_(2)];
  });
}

// The submission's optimizer state through Python (torch.save of the state dicts of the
// optimizers and schedulers it holds), as one byte tensor in the checkpoint.
NamedTensors PythonSubmission::state() const {
  return guarded("checkpoint (saving the optimizer state)", [&] {
    const std::string bytes = module_->glue.attr("save_state")(optimizer_state_).cast<py::bytes>();
    at::Tensor data = at::empty({static_cast<int64_t>(bytes.size())}, at::kByte);
    if (!bytes.empty()) std::memcpy(data.data_ptr(), bytes.data(), bytes.size());
    return NamedTensors{{"python_optimizer_state", data}};
  });
}

void PythonSubmission::load_state(const NamedTensors& state) {
  at::Tensor data;
  for (const auto& [key, tensor] : state) {
    if (key != "python_optimizer_state") throw InputError(name() + ": unknown optimizer state entry '" + key + "'");
    data = tensor.contiguous();
  }
  if (!data.defined()) throw InputError(name() + ": the checkpoint holds no optimizer state");
  guarded("checkpoint (restoring the optimizer state)", [&] {
    py::bytes bytes(static_cast<const char*>(data.data_ptr()), static_cast<size_t>(data.numel()));
    optimizer_state_ = module_->glue.attr("load_state")(optimizer_state_, bytes);
  });
}

}  // namespace pacer
