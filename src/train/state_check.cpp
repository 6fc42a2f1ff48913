#include "train/state_check.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <utility>

#include "core/error.h"
#include "core/format.h"
#include "core/seed.h"
#include "runtime/torch_runtime.h"
#include "train/checkpoint.h"
#include "train/trial_runner.h"

namespace pacer {
namespace {

// All parameters as one double vector on the CPU (a copy).
at::Tensor flat_parameters(Network& network) {
  std::vector<at::Tensor> parts;
  for (const auto& p : network.parameters()) parts.push_back(p.detach().reshape({-1}).to(at::kCPU, at::kDouble));
  return parts.empty() ? at::zeros({0}, at::kDouble) : at::cat(parts);
}

NamedTensors cloned(const NamedTensors& state) {
  NamedTensors out;
  for (const auto& [name, value] : state) out.emplace_back(name, value.defined() ? value.detach().clone() : value);
  return out;
}

// Forwards every call to the algorithm under check and records, around its updates, the
// parameters after each step from the restore point on, and state() at the restore point.
class RecordingAlgorithm final : public TrainingAlgorithm {
 public:
  RecordingAlgorithm(TrainingAlgorithm& inner, int64_t restore_at, std::atomic<bool>* stop_after_restore_point)
      : inner_(inner), restore_at_(restore_at), stop_(stop_after_restore_point) {}

  std::string name() const override { return inner_.name(); }
  std::string description() const override { return inner_.description(); }
  std::vector<HyperparameterSpec> hyperparameter_specs() const override { return inner_.hyperparameter_specs(); }
  int64_t batch_size(const WorkloadSpec& workload) const override { return inner_.batch_size(workload); }
  void init_optimizer_state(const Workload& workload, Network& network, const Hyperparameters* hparams,
                            uint64_t seed) override {
    inner_.init_optimizer_state(workload, network, hparams, seed);
  }
  Batch select_data(BatchStream& stream, const StepContext& context) override {
    return inner_.select_data(stream, context);
  }
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override {
    if (context.step == restore_at_) parameters[restore_at_] = flat_parameters(network);
    UpdateResult result = inner_.update(workload, network, batch, context);
    const int64_t done = context.step + 1;
    if (done > restore_at_) parameters[done] = flat_parameters(network);
    if (done == restore_at_) state_at_restore_point = cloned(inner_.state());
    // B: the checkpoint was written after step restore_at; stop after the next one (an interrupt
    // requested during step restore_at itself would stop the run before its checkpoint).
    if (stop_ && done == restore_at_ + 1) stop_->store(true);
    return result;
  }
  void prepare_for_eval(const Workload& workload, Network& network, const StepContext& context) override {
    inner_.prepare_for_eval(workload, network, context);
  }
  NamedTensors state() const override { return inner_.state(); }
  void load_state(const NamedTensors& state) override { inner_.load_state(state); }

  std::map<int64_t, at::Tensor> parameters;  // completed steps -> parameters, from restore_at on
  std::optional<NamedTensors> state_at_restore_point;

 private:
  TrainingAlgorithm& inner_;
  int64_t restore_at_;
  std::atomic<bool>* stop_;
};

double max_abs(const at::Tensor& t) { return t.numel() == 0 ? 0.0 : t.abs().max().item<double>(); }

bool same_tensor(const at::Tensor& a, const at::Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  if (a.sizes() != b.sizes()) return false;
  const at::Tensor x = a.detach().to(at::kCPU, at::kDouble), y = b.detach().to(at::kCPU, at::kDouble);
  return at::allclose(x, y, /*rtol=*/1e-6, /*atol=*/1e-12, /*equal_nan=*/true);
}

// "exp_avg.0", "exp_avg.1" -> "exp_avg (2 tensors)"; other names as they are.
std::vector<std::string> grouped(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, int>> groups;
  for (const auto& name : names) {
    const size_t dot = name.rfind('.');
    const bool indexed = dot != std::string::npos && dot + 1 < name.size() &&
                         std::all_of(name.begin() + dot + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
    const std::string key = indexed ? name.substr(0, dot) + "." : name;
    if (!groups.empty() && groups.back().first == key) {
      ++groups.back().second;
    } else {
      groups.emplace_back(key, 1);
    }
  }
  std::vector<std::string> out;
  for (const auto& [key, count] : groups) {
    if (key.back() != '.') {
      out.push_back(key);
    } else {
      out.push_back(key.substr(0, key.size() - 1) + " (" + std::to_string(count) + (count == 1 ? " tensor)" : " tensors)"));
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

std::string number(double value) { return format_double("%.3g", value); }

// state() given to load_state of a fresh instance and read back: entries dropped or changed.
std::vector<std::string> round_trip(const NamedTensors& state, TrainingAlgorithm& fresh) {
  fresh.load_state(cloned(state));
  std::map<std::string, at::Tensor> back;
  for (const auto& [name, value] : fresh.state()) back[name] = value;
  std::vector<std::string> problems;
  for (const auto& [name, value] : state) {
    const auto it = back.find(name);
    if (it == back.end()) {
      problems.push_back(name + ": dropped by load_state");
    } else if (!same_tensor(value, it->second)) {
      problems.push_back(name + ": changed by load_state");
    }
  }
  return problems;
}

std::vector<std::string> drifted_entries(const NamedTensors& expected, const NamedTensors& actual) {
  std::map<std::string, at::Tensor> by_name;
  for (const auto& [name, value] : actual) by_name[name] = value;
  std::vector<std::string> names;
  for (const auto& [name, value] : expected) {
    const auto it = by_name.find(name);
    if (it == by_name.end() || !same_tensor(value, it->second)) names.push_back(name);
    if (it != by_name.end()) by_name.erase(it);
  }
  for (const auto& entry : by_name) names.push_back(entry.first);  // only in the resumed run's state
  return grouped(names);
}

// The first differing update: one common factor, or element-wise differences.
std::pair<UpdateDifference, double> classify(const at::Tensor& expected_update, const at::Tensor& actual_update) {
  const double largest = max_abs(expected_update);
  if (largest == 0.0) return {UpdateDifference::elementwise, 0.0};
  const at::Tensor mask = expected_update.abs() > 0.1 * largest;  // the elements that carry the update
  if (mask.sum().item<int64_t>() < 2) return {UpdateDifference::elementwise, 0.0};
  const at::Tensor ratios = actual_update.masked_select(mask) / expected_update.masked_select(mask);
  const double scale = ratios.median().item<double>();
  if (!std::isfinite(scale) || scale == 0.0) return {UpdateDifference::elementwise, 0.0};
  const double spread = max_abs(ratios - scale) / std::abs(scale);
  return {spread < 0.01 ? UpdateDifference::scaled : UpdateDifference::elementwise, scale};
}

std::string diagnose(const StateCheckReport& r) {
  std::string text;
  const std::string after = "after a checkpoint at step " + std::to_string(r.restore_at);
  if (!r.resume_error.empty()) text += "The resumed run failed (" + after + "): " + r.resume_error + ". ";
  if (!r.not_restored.empty()) {
    text += "load_state() does not give back what state() handed it: " + joined(r.not_restored) + ". ";
  }
  if (r.first_differing_step) {
    const int64_t t = *r.first_differing_step;
    if (t == r.restore_at) {
      text += "The parameters restored " + after + " differ from the run's own (max |difference| " +
              number(r.max_difference) + "): the checkpoint did not restore the network. ";
    } else {
      text += "From step " + std::to_string(t) + " on, the run resumed " + after +
              " trains differently from the uninterrupted one (max |difference| " + number(r.max_difference) +
              ", that step's largest update " + number(r.update_size) + "). ";
      if (r.difference == UpdateDifference::scaled) {
        text += "Its update there is the uninterrupted one's times " + number(r.scale) +
                " on every parameter: state() leaves out a scalar the update depends on, typically a step counter "
                "(bias correction, warm-up, a schedule's position). ";
      } else {
        text += "Its update there differs element by element: state() leaves out (or load_state() does not "
                "restore) per-parameter state, e.g. a moment, an accumulator or a copy of the weights. ";
      }
      if (t > r.restore_at + 1) {
        text += "The first " + std::to_string(t - r.restore_at - 1) +
                " update(s) after the restore agree: the missing state acts only from step " + std::to_string(t) +
                " on (e.g. the counter of a periodic action). ";
      }
    }
  }
  if (!r.drifted.empty()) {
    text += "Entries of state() that end up different from the uninterrupted run's after step " +
            std::to_string(r.steps) + ": " + joined(r.drifted) + ". ";
  }
  if (!r.passed && r.entries.empty()) text += "state() is empty. ";
  if (r.passed) {
    text = "state() holds everything the updates depend on: resumed " + after + " in a fresh instance, steps " +
           std::to_string(r.restore_at + 1) + " to " + std::to_string(r.steps) +
           " match the uninterrupted run and load_state() gives back every entry.";
  }
  if (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// The first step from the restore point at which the resumed run's parameters differ from the
// uninterrupted run's by more than the tolerance, and how (report.first_differing_step ...).
void compare_steps(const RecordingAlgorithm& a, const RecordingAlgorithm& c, const StateCheckOptions& options,
                   int64_t resumed_steps, StateCheckReport& report) {
  for (int64_t t = options.restore_at; t <= options.steps; ++t) {
    const auto ia = a.parameters.find(t), ic = c.parameters.find(t);
    if (ia == a.parameters.end() || ic == c.parameters.end()) {
      if (report.resume_error.empty()) report.resume_error = "it stopped after step " + std::to_string(resumed_steps);
      break;
    }
    const at::Tensor& pa = ia->second;
    const at::Tensor& pc = ic->second;
    const double gap = pa.sizes() == pc.sizes() ? max_abs(pa - pc) : INFINITY;
    const at::Tensor expected_update = t > options.restore_at ? pa - a.parameters.at(t - 1) : at::zeros_like(pa);
    const at::Tensor actual_update = t > options.restore_at ? pc - c.parameters.at(t - 1) : at::zeros_like(pc);
    const double update = max_abs(expected_update);
    const double allowed = options.tolerance * (update > 0.0 ? update : std::max(max_abs(pa), 1e-30));
    if (gap > allowed && gap > 0.0) {
      report.first_differing_step = t;
      report.max_difference = gap;
      report.update_size = update;
      if (t > options.restore_at) std::tie(report.difference, report.scale) = classify(expected_update, actual_update);
      break;
    }
  }
}

// load_state, round trip: a fresh instance, initialized as for a fresh start, loads the state
// taken at the restore point; the entries it does not give back as they were.
std::vector<std::string> load_state_round_trip(Workload& workload, const AlgorithmFactory& make_algorithm,
                                               const std::optional<Hyperparameters>& hparams,
                                               const StateCheckOptions& options, const NamedTensors& restore_point) {
  const auto fresh = make_algorithm();
  const c10::Device device = resolve_device(options.spec.device);
  auto network = workload.init_model(derive_seed(options.seed, SeedStream::model_init), device);
  std::optional<Hyperparameters> resolved;
  if (hparams) resolved = resolve_hyperparameters(fresh->hyperparameter_specs(), *hparams, fresh->name());
  fresh->init_optimizer_state(workload, *network, resolved ? &*resolved : nullptr,
                              derive_seed(options.seed, SeedStream::optimizer));
  try {
    return round_trip(restore_point, *fresh);
  } catch (const std::exception& e) {
    return {std::string("load_state threw: ") + e.what()};
  }
}

}  // namespace

StateCheckReport check_algorithm_state(Workload& workload, const AlgorithmFactory& make_algorithm,
                                       const std::optional<Hyperparameters>& hparams, const StateCheckOptions& options) {
  if (options.steps < 2) throw InputError("state check: --steps must be at least 2, got " + std::to_string(options.steps));
  if (options.restore_at < 1 || options.restore_at >= options.steps) {
    throw InputError("state check: --restore-at must lie between 1 and --steps - 1 (" +
                     std::to_string(options.steps - 1) + "), got " + std::to_string(options.restore_at));
  }
  if (options.work_dir.empty()) throw InputError("state check: a work folder is required");
  // Runs A, B and C are compared exactly: on a GPU only deterministic kernels allow it.
  use_deterministic_kernels(resolve_device(options.spec.device));

  StateCheckReport report;
  report.steps = options.steps;
  report.restore_at = options.restore_at;

  TrialOptions base;
  base.seed = options.seed;
  base.make_algorithm = make_algorithm;  // delta mode's extra workers
  base.spec = options.spec;
  base.spec.max_steps = options.steps;
  base.spec.stop_at_targets = false;
  base.spec.time_budget = 1e9;                     // the step limit ends the runs, not the clock
  base.spec.eval_every_steps = options.steps;      // evals at step 1 and at the end: not compared
  base.spec.eval_splits = {EvalSplit::validation};

  // A: uninterrupted.
  const auto algorithm_a = make_algorithm();
  RecordingAlgorithm a(*algorithm_a, options.restore_at, nullptr);
  const TrialResult result_a = run_trial(workload, a, hparams, base);
  if (result_a.status == TrialStatus::failed || result_a.diverged() || result_a.steps != options.steps ||
      !a.state_at_restore_point) {
    throw InputError("state check: the uninterrupted run of " + a.name() + " on " + workload.spec().name +
                     " did not complete " + std::to_string(options.steps) + " steps (" +
                     to_string(result_a.stop_reason) + (result_a.message.empty() ? "" : ": " + result_a.message) +
                     "); choose hyperparameters that train (--set)");
  }
  for (const auto& [name, value] : *a.state_at_restore_point) report.entries.push_back(name);
  report.entries = grouped(report.entries);

  // B: checkpointed at restore_at, stopped after the next step.
  std::atomic<bool> stop_b{false};
  TrialOptions options_b = base;
  options_b.out_dir = options.work_dir + "/resumed";
  options_b.checkpoints.every_steps = options.restore_at;
  options_b.stop_requested = &stop_b;
  {
    const auto algorithm_b = make_algorithm();
    RecordingAlgorithm b(*algorithm_b, options.restore_at, &stop_b);
    const TrialResult result_b = run_trial(workload, b, hparams, options_b);
    if (!checkpoint_exists(options_b.out_dir + "/checkpoint")) {
      throw Error("state check: the interrupted run wrote no checkpoint at step " + std::to_string(options.restore_at) +
                  " (" + to_string(result_b.stop_reason) + (result_b.message.empty() ? "" : ": " + result_b.message) + ")");
    }
  }

  // C: a fresh instance resumed from B's checkpoint.
  TrialOptions options_c = base;
  options_c.out_dir = options_b.out_dir;
  options_c.checkpoints.resume = true;
  const auto algorithm_c = make_algorithm();
  RecordingAlgorithm c(*algorithm_c, options.restore_at, nullptr);
  TrialResult result_c;
  try {
    result_c = run_trial(workload, c, hparams, options_c);
    if (result_c.status == TrialStatus::failed && !result_c.message.empty()) report.resume_error = result_c.message;
    if (result_c.diverged()) report.resume_error = "it diverged: " + result_c.message;
  } catch (const std::exception& e) {  // e.g. load_state refusing an entry its own state() wrote
    report.resume_error = e.what();
  }

  compare_steps(a, c, options, result_c.steps, report);

  report.not_restored = load_state_round_trip(workload, make_algorithm, hparams, options, *a.state_at_restore_point);
  if (report.resume_error.empty()) report.drifted = drifted_entries(algorithm_a->state(), algorithm_c->state());

  report.passed = report.resume_error.empty() && report.not_restored.empty() && !report.first_differing_step &&
                  report.drifted.empty();
  report.diagnosis = diagnose(report);
  return report;
}

}  // namespace pacer
