#include "train/trial_runner.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/own_gradient.h"
#include "core/child_processes.h"
#include "core/device_choice.h"
#include "core/error.h"
#include "core/seed.h"
#include "data/batch_stream.h"
#include "distributed/data_parallel_plan.h"
#include "runtime/global_generator_lease.h"
#include "runtime/torch_runtime.h"
#include "train/checkpoint.h"
#include "train/trial_checkpointing.h"
#include "train/data_parallel_step.h"
#include "train/eval_schedule.h"
#include "train/noise_scale_probe.h"
#include "train/progress_observer.h"
#include "train/rank_sync.h"
#include "train/synchronized_clock.h"
#include "train/trial_writer.h"

namespace pacer {
namespace {

bool parameters_finite(Network& network) {
  for (const auto& p : network.parameters()) {
    if (!at::isfinite(p).all().item<bool>()) return false;
  }
  return true;
}

// Why an eval shows divergence, if it does: non-finite parameters, any non-finite evaluated
// loss (the signal when validation is skipped), or a non-finite validation metric.
std::optional<std::string> divergence_in(const EvalRecord& record, bool finite_params, const std::string& val_key,
                                         bool validation_evaluated) {
  const std::string at_step = " at step " + std::to_string(record.step);
  if (!finite_params) return "non-finite parameters" + at_step;
  for (const auto& [key, value] : record.metrics) {
    if (key.size() > 5 && key.compare(key.size() - 5, 5, "/loss") == 0 && !std::isfinite(value)) {
      return "non-finite eval loss" + at_step;
    }
  }
  const auto it = record.metrics.find(val_key);
  if (validation_evaluated && (it == record.metrics.end() || !std::isfinite(it->second))) {
    return "non-finite validation metric" + at_step;
  }
  return std::nullopt;
}

// The local rank's device, and what it rules out (the cpu clock on a GPU).
c10::Device checked_device(const TrialOptions& options) {
  const c10::Device device = resolve_device(options.spec.device, options.local_rank);
  check_clock_for_device(options.spec.clock, device.str());
  return device;
}

// One trial, from untimed set-up to the result; run() is the loop: step, agree, evaluate or
// check the stop rules.
class TrialLoop {
 public:
  TrialLoop(Workload& workload, TrainingAlgorithm& algorithm, const std::optional<Hyperparameters>& hparams,
            const TrialOptions& options)
      : workload_(workload), algorithm_(algorithm), hparams_(hparams), options_(options),
        own_clock_(options.clock ? nullptr : make_clock(options.spec.clock)),
        timer_(options.clock ? *options.clock : *own_clock_), spec_(workload.spec()),
        device_(checked_device(options)), clock_(timer_, [this] { synchronize(device_); }),
        checkpoints_(options.checkpoints, options.out_dir, spec_, clock_) {}

  TrialResult run();

 private:
  void set_up();
  void add_observers();
  std::unique_ptr<DataParallelStep> make_data_parallel_step();
  void take_step();
  std::optional<StopReason> evaluate_and_decide();
  EvalDecision evaluate();
  void record_metrics(EvalRecord& record);
  void report_step();
  void check_algorithm_metric_name(const std::string& name) const;
  CheckpointState checkpoint_identity() const;
  void diverge(const std::string& message);
  TrialProgress progress() const { return {state_, time_remaining_, training_complete_, interrupted_}; }
  template <typename Call>
  void notify(Call call) {
    if (sync_->lead()) for (auto& o : observers_) call(*o);
  }
  TrialResult finish();

  Workload& workload_;
  TrainingAlgorithm& algorithm_;
  const std::optional<Hyperparameters>& hparams_;
  const TrialOptions& options_;
  std::unique_ptr<Clock> own_clock_;  // the spec's clock, unless the caller gives one
  Clock& timer_;                      // that clock, read only through clock_
  const WorkloadSpec& spec_;
  const c10::Device device_;
  SynchronizedClock clock_;  // every read after the device's queued work

  std::optional<Hyperparameters> resolved_;
  std::shared_ptr<DataParallelPlan> plan_;
  std::unique_ptr<RankSync> sync_;
  std::unique_ptr<DataParallelStep> data_parallel_;
  std::vector<std::shared_ptr<TrialObserver>> observers_;
  std::shared_ptr<Network> network_;
  std::unique_ptr<BatchStream> stream_;
  std::unique_ptr<NoiseScaleProbe> noise_probe_;
  std::unique_ptr<EvalSchedule> schedule_;
  StopRules rules_;
  std::vector<EvalSplit> splits_;

  TrialResult result_;
  RunnerState state_;
  double start_ = 0.0, last_step_end_ = 0.0, step_end_ = 0.0, loss_ = 0.0;
  // The update's gradient norm (NaN when the algorithm reports none) and its values since the
  // last eval, summarized in the eval's train/grad_norm* metrics.
  double grad_norm_ = std::numeric_limits<double>::quiet_NaN();
  Metrics algorithm_metrics_;  // the algorithm's own, of the last step that reported any
  std::vector<double> grad_norms_since_eval_;
  bool time_remaining_ = true, training_complete_ = false, interrupted_ = false;
  int threads_ = 0;  // intra-op threads Pacer set (--threads): an algorithm may not change them
  StepContext context_;
  std::optional<StopReason> stop_;
  TrialCheckpointing checkpoints_;
  const CheckpointState* restored_ = nullptr;  // what --resume restored, if anything
};

void TrialLoop::set_up() {
  if (hparams_) resolved_ = resolve_hyperparameters(algorithm_.hyperparameter_specs(), *hparams_, algorithm_.name());
  const TrialSpec& spec = options_.spec;
  spec.validate();
  result_.workload = spec_.name;
  result_.algorithm = algorithm_.name();
  result_.seed = options_.seed;
  result_.clock = to_string(options_.spec.clock);
  result_.restrictions = options_.restrictions;
  result_.batch_size = spec.batch_size ? *spec.batch_size : algorithm_.batch_size(spec_);
  result_.time_budget = spec.resolved_time_budget(spec_);
  if (result_.batch_size <= 0) throw InputError("batch size must be positive");
  if (!(result_.time_budget > 0)) throw InputError("time budget must be positive");

  plan_ = make_data_parallel_plan(spec.data_parallel, options_.communicator);
  if (plan_ && takes_own_gradient(algorithm_)) {
    throw InputError("algorithm '" + algorithm_.name() +
                     "' is a Python submission: its update_params takes its own gradient (loss.backward()), which "
                     "Pacer cannot shard over workers and combine; run it without --combine, --virtual-workers "
                     "and several processes");
  }
  sync_ = make_rank_sync(plan_ ? plan_->communicator.get() : nullptr, device_);
  if (plan_ && result_.batch_size % plan_->workers() != 0) {
    throw InputError("batch size " + std::to_string(result_.batch_size) + " does not split into " +
                     std::to_string(plan_->workers()) + " equal worker shards");
  }
  add_observers();
  checkpoints_.configure(checkpoint_identity(), sync_->world_size(),
                         plan_ && plan_->combine_deltas && plan_->virtual_workers > 1);
  workload_.load({spec.data_dir, device_});
  network_ = workload_.init_model(derive_seed(options_.seed, SeedStream::model_init), device_);
  threads_ = num_threads();
  result_.threads = threads_;
  result_.device = device_.str();
  algorithm_.init_optimizer_state(workload_, *network_, resolved_ ? &*resolved_ : nullptr,
                                  derive_seed(options_.seed, SeedStream::optimizer));
  if (plan_) data_parallel_ = make_data_parallel_step();
  sync_->verify_identical_parameters(*network_);
  checkpoints_.attach(*network_, algorithm_, state_, grad_norms_since_eval_);
  restored_ = checkpoints_.restore(options_.spec.max_steps);
  TrialStart start{spec_, algorithm_.name(), options_.seed, device_.str(), num_threads(), result_.batch_size,
                   result_.time_budget, spec.describe_eval_cadence(spec_), resolved_, checkpoints_.preemption_count(), state_.evals,
                   to_string(spec.clock)};
  notify([&](TrialObserver& o) { o.on_start(start); });
  if (plan_) notify([&](TrialObserver& o) { o.on_message("data parallel: " + plan_->describe()); });
  if (restored_) {
    notify([&](TrialObserver& o) { o.on_message("resumed from " + checkpoints_.dir() + " at step " + std::to_string(state_.step) +
                  (restored_->unverified ? " (written by an earlier Pacer without checksums: not verified)" : "")); });
  }
  stream_ = std::make_unique<BatchStream>(
      workload_.dataset(EvalSplit::train),
      BatchStreamOptions{result_.batch_size, options_.seed, sync_->rank(), sync_->world_size(), options_.prefetch,
                         restored_ ? restored_->batches_consumed : 0});
  if (spec.noise_scale_shards > 0) {  // its own batches: the training data order is unchanged
    noise_probe_ = std::make_unique<NoiseScaleProbe>(workload_, result_.batch_size, spec.noise_scale_shards,
                                                     derive_seed(options_.seed, SeedStream::data_order) + 1);
  }
  schedule_ = std::make_unique<EvalSchedule>(make_eval_cadence(spec, spec_), spec.max_steps);
  rules_ = standard_stop_rules(spec);
  rules_.insert(rules_.end(), options_.extra_stop_rules.begin(), options_.extra_stop_rules.end());
  splits_ = spec.eval_splits.empty() ? std::vector<EvalSplit>{EvalSplit::train, EvalSplit::validation, EvalSplit::test}
                                     : spec.eval_splits;
  state_.time_budget = result_.time_budget;
}

CheckpointState TrialLoop::checkpoint_identity() const {
  CheckpointState id;
  id.workload = spec_.name;
  id.algorithm = algorithm_.name();
  id.seed = options_.seed;
  id.batch_size = result_.batch_size;
  id.definition = trial_definition(options_.spec, resolved_, result_.time_budget, num_threads());
  return id;
}

void TrialLoop::add_observers() {
  if (!sync_->lead()) return;
  if (!options_.out_dir.empty()) observers_.push_back(std::make_shared<TrialWriter>(options_.out_dir));
  if (options_.progress) observers_.push_back(std::make_shared<ProgressObserver>(*options_.progress));
  observers_.insert(observers_.end(), options_.observers.begin(), options_.observers.end());
}

// Delta mode with virtual workers: every worker has its own optimizer state, so workers 1..K-1
// get their own instance of the algorithm (the caller's factory), initialized like worker 0's.
std::unique_ptr<DataParallelStep> TrialLoop::make_data_parallel_step() {
  std::vector<std::unique_ptr<TrainingAlgorithm>> workers;
  if (plan_->combine_deltas && plan_->virtual_workers > 1 && !options_.make_algorithm) {
    throw InputError("delta mode over " + std::to_string(plan_->virtual_workers) + " virtual workers needs a fresh "
                     "instance of '" + algorithm_.name() + "' per worker: give TrialOptions::make_algorithm");
  }
  for (int k = 1; plan_->combine_deltas && k < plan_->virtual_workers; ++k) {
    workers.push_back(options_.make_algorithm());
    if (!workers.back()) throw Error("TrialOptions::make_algorithm returned no algorithm");
    workers.back()->init_optimizer_state(workload_, *network_, resolved_ ? &*resolved_ : nullptr,
                                         derive_seed(options_.seed, SeedStream::optimizer));
  }
  return std::make_unique<DataParallelStep>(plan_, algorithm_, *network_, std::move(workers));
}

void TrialLoop::take_step() {
  context_ = StepContext{state_.step, derive_seed(options_.seed, static_cast<uint64_t>(state_.step)), &state_};
  UpdateResult update;
  {
    // Dropout and any other draw of the step: its own seed, no other trial's draws in between.
    GlobalGeneratorLease draws(derive_seed(context_.step_seed, SeedStream::dropout));
    Batch batch = algorithm_.select_data(*stream_, context_);
    update = data_parallel_ ? data_parallel_->update(workload_, *network_, batch, context_)
                            : algorithm_.update(workload_, *network_, batch, context_);
    synchronize(device_);
  }
  step_end_ = clock_.now();
  // A submission's torch.set_num_threads would buy it compute the run did not grant (and change
  // what its times mean): the trial fails, saying so.
  if (num_threads() != threads_) {
    throw SubmissionError("algorithm '" + algorithm_.name() + "' changed the intra-op thread count from " +
                          std::to_string(threads_) + " to " + std::to_string(num_threads()) +
                          "; Pacer sets it (--threads), an algorithm may not");
  }
  state_.accumulated_submission_time += step_end_ - last_step_end_;
  state_.step += 1;
  training_complete_ = update.training_complete;
  loss_ = update.loss.defined() ? update.loss.item<double>() : 0.0;
  grad_norm_ = update.grad_norm.defined() ? update.grad_norm.item<double>() : std::numeric_limits<double>::quiet_NaN();
  if (!std::isnan(grad_norm_)) grad_norms_since_eval_.push_back(grad_norm_);
  if (!update.metrics.empty()) {
    for (const auto& [name, value] : update.metrics) check_algorithm_metric_name(name);
    algorithm_metrics_ = std::move(update.metrics);
  }
}

// A name that would break the CSV or the "algorithm/" prefix: the algorithm's error (exit 2).
void TrialLoop::check_algorithm_metric_name(const std::string& name) const {
  const bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
  if (!valid) {
    throw SubmissionError("algorithm '" + algorithm_.name() + "' reported a metric named '" + name +
                          "': use letters, digits, _ . and - only");
  }
}

TrialResult TrialLoop::run() {
  set_up();
  synchronize(device_);
  start_ = last_step_end_ = state_.last_eval_time = clock_.now();
  if (restored_) start_ -= restored_->total_duration;  // total_duration continues
  checkpoints_.start(last_step_end_, [this] { return stream_->position(); });
  try {
    while (!stop_) {
      take_step();
      const bool stop_here = options_.stop_requested && options_.stop_requested->load();
      // AlgoPerf's budget (its runner since v0.6): once the submission time is spent the trial
      // ends, and no eval is made past the budget, so nothing measured after it can score.
      const bool budget_spent = !(state_.accumulated_submission_time < state_.time_budget);
      const bool eval_due =
          !budget_spent && schedule_->due(state_.step, step_end_, state_.last_eval_time, training_complete_);
      const StepConsensus agreed = sync_->after_step(loss_, eval_due, budget_spent, stop_here);
      loss_ = agreed.loss;
      interrupted_ = agreed.stop_requested;
      time_remaining_ = !agreed.budget_spent;
      if (!std::isfinite(loss_)) {
        diverge("non-finite training loss at step " + std::to_string(state_.step));
        break;
      }
      if (agreed.eval_due) {
        stop_ = evaluate_and_decide();
      } else {
        report_step();
        stop_ = first_stop(rules_, progress());
      }
      if (!stop_) checkpoints_.maybe_save();
      last_step_end_ = clock_.now();
    }
  } catch (const InputError&) {
    throw;
  } catch (const SubmissionError& e) {
    result_.status = TrialStatus::failed;
    stop_ = StopReason::error;
    result_.message = with_child_process_hint(e.what());
    result_.submission_error = true;
  } catch (const std::exception& e) {
    result_.status = TrialStatus::failed;
    stop_ = StopReason::error;
    result_.message = e.what();
  }
  return finish();
}

std::optional<StopReason> TrialLoop::evaluate_and_decide() {
  sync_->before_eval(*network_);
  EvalDecision decision = sync_->lead() ? evaluate() : EvalDecision{};
  decision = sync_->share_decision(decision);
  state_.validation_target_reached = decision.validation_target_reached;
  state_.test_target_reached = decision.test_target_reached;
  if (decision.stop == StopReason::diverged && !sync_->lead()) result_.message = "diverged (rank 0's eval)";
  return decision.stop;
}

// Rank 0: prepare_for_eval on the clock, the evals off it, then the observers as logging time.
EvalDecision TrialLoop::evaluate() {
  const double prepare_start = clock_.now();
  algorithm_.prepare_for_eval(workload_, *network_, StepContext{state_.step, context_.step_seed, &state_});
  synchronize(device_);
  state_.accumulated_submission_time += clock_.now() - prepare_start;
  time_remaining_ = state_.accumulated_submission_time < state_.time_budget;
  if (!time_remaining_) return EvalDecision{StopReason::budget};  // preparing spent the budget: no eval

  const double eval_start = clock_.now();
  EvalRecord record;
  record.step = state_.step;
  record.preemption_count = checkpoints_.preemption_count();
  record.accumulated_submission_time = state_.accumulated_submission_time;
  record_metrics(record);
  const bool finite_params = parameters_finite(*network_);
  synchronize(device_);
  const double eval_end = clock_.now();
  state_.accumulated_eval_time += eval_end - eval_start;
  record.accumulated_eval_time = state_.accumulated_eval_time;
  record.accumulated_logging_time = state_.accumulated_logging_time;
  record.total_duration = eval_end - start_;

  const double logging_start = clock_.now();
  state_.evals.push_back(record);
  notify([&](TrialObserver& o) { o.on_eval({state_.evals.back(), loss_, state_.time_budget, grad_norm_}); });
  checkpoints_.keep_if_best(state_.evals.back());
  state_.accumulated_logging_time += clock_.now() - logging_start;
  state_.last_eval_time = clock_.now();

  const std::string val_key = "validation/" + spec_.target_metric;
  const bool validation_evaluated = std::find(splits_.begin(), splits_.end(), EvalSplit::validation) != splits_.end();
  EvalDecision decision;
  if (auto why = divergence_in(state_.evals.back(), finite_params, val_key, validation_evaluated)) {
    diverge(*why);
    decision.stop = StopReason::diverged;
  } else {
    decision.stop = first_stop(rules_, progress());
  }
  decision.validation_target_reached = state_.validation_target_reached;
  decision.test_target_reached = state_.test_target_reached;
  return decision;
}

// The metrics of every evaluated split (and the probes'), and the targets reached (a target once
// reached stays reached); the in-run check is strict, as in the reference.
void TrialLoop::record_metrics(EvalRecord& record) {
  {
    // No autograd bookkeeping at all (not only no graph): nothing an eval computes outlives it.
    c10::InferenceMode inference;
    for (EvalSplit split : splits_) {
      for (const auto& [name, value] : workload_.evaluate(*network_, split)) {
        record.metrics[std::string(to_string(split)) + "/" + name] = value;
      }
    }
  }
  if (noise_probe_) noise_probe_->measure(workload_, *network_, record.metrics);
  if (!grad_norms_since_eval_.empty()) {  // the steps since the last eval
    double sum = 0.0, largest = 0.0;
    for (double n : grad_norms_since_eval_) sum += n, largest = std::max(largest, n);
    record.metrics["train/grad_norm"] = grad_norms_since_eval_.back();
    record.metrics["train/grad_norm_mean"] = sum / static_cast<double>(grad_norms_since_eval_.size());
    record.metrics["train/grad_norm_max"] = std::isfinite(sum) ? largest : sum;
    grad_norms_since_eval_.clear();
  }
  for (const auto& [name, value] : algorithm_metrics_) record.metrics["algorithm/" + name] = value;
  auto reached = [&](const std::string& key, double target) {
    const auto it = record.metrics.find(key);
    return it != record.metrics.end() && std::isfinite(it->second) && spec_.reached(it->second, target, true);
  };
  if (reached("validation/" + spec_.target_metric, spec_.validation_target)) state_.validation_target_reached = true;
  if (reached("test/" + spec_.target_metric, spec_.test_target)) state_.test_target_reached = true;
}

void TrialLoop::report_step() {
  if (!sync_->lead()) return;
  const StepReport report{state_.step, state_.accumulated_submission_time, state_.time_budget, loss_,
                          state_.evals.empty() ? nullptr : &state_.evals.back(), grad_norm_};
  for (auto& o : observers_) {
    if (o->wants_steps()) o->on_step(report);
  }
}

void TrialLoop::diverge(const std::string& message) {
  stop_ = StopReason::diverged;
  result_.message = message;
  notify([&](TrialObserver& o) { o.on_message(message); });
}

TrialResult TrialLoop::finish() {
  result_.steps = state_.step;
  result_.submission_time = state_.accumulated_submission_time;
  result_.eval_time = state_.accumulated_eval_time;
  result_.logging_time = state_.accumulated_logging_time;
  result_.total_duration = clock_.now() - start_;
  result_.evals = state_.evals;
  compute_targets(spec_, result_);
  result_.stop_reason = stop_.value_or(StopReason::error);
  if (result_.stop_reason == StopReason::error) {
    result_.status = TrialStatus::failed;
  } else if (result_.stop_reason == StopReason::interrupted) {
    result_.status = TrialStatus::interrupted;
    result_.message = "interrupted";
  } else if (result_.time_to_target) {
    result_.status = TrialStatus::reached;
  } else if (result_.stop_reason == StopReason::diverged) {
    result_.status = TrialStatus::diverged;
  } else if (is_race_stop(result_.stop_reason)) {
    result_.status = TrialStatus::stopped;
  } else {
    result_.status = TrialStatus::not_reached;
  }
  notify([&](TrialObserver& o) { o.on_finish(result_); });
  return result_;
}

}  // namespace

TrialResult run_trial(Workload& workload, TrainingAlgorithm& algorithm, const std::optional<Hyperparameters>& hparams,
                      const TrialOptions& options) {
  return TrialLoop(workload, algorithm, hparams, options).run();
}

}  // namespace pacer
