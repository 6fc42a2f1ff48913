#include "train/trial_checkpointing.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace pacer {

std::string trial_definition(const TrialSpec& spec, const std::optional<Hyperparameters>& resolved, double time_budget,
                             int threads) {
  nlohmann::ordered_json definition;
  definition["spec"] = nlohmann::ordered_json::parse(spec.to_json());
  definition["ruleset"] = resolved ? "external" : "self";
  definition["hyperparameters"] = resolved ? nlohmann::ordered_json::parse(resolved->to_json(0)) : nlohmann::ordered_json();
  definition["time_budget"] = time_budget;
  // On the cpu clock N threads advance the clock about N times as fast: a resume with another
  // count would join two measures into one time (on the wall clock it is the hardware's to choose).
  if (spec.clock == ClockKind::cpu) definition["threads"] = threads;
  return definition.dump();
}

TrialCheckpointing::TrialCheckpointing(CheckpointPolicy policy, std::string out_dir, const WorkloadSpec& spec,
                                       Clock& clock)
    : policy_(policy), out_dir_(std::move(out_dir)), spec_(spec), clock_(clock) {}

void TrialCheckpointing::configure(CheckpointState identity, int world_size, bool per_worker_optimizer_state) {
  if (!policy_.requested()) return;
  if (out_dir_.empty())
    throw InputError("checkpoints (--checkpoint-every, --resume, --keep-best) need an output folder (--out)");
  if (world_size > 1) throw InputError("checkpoints with several processes are not supported yet");
  if (per_worker_optimizer_state)
    throw InputError("checkpoints with delta mode over virtual workers are not supported yet");
  dir_ = out_dir_ + "/checkpoint";
  identity_ = std::move(identity);
}

void TrialCheckpointing::attach(Network& network, TrainingAlgorithm& algorithm, RunnerState& state,
                                std::vector<double>& grad_norms) {
  network_ = &network;
  algorithm_ = &algorithm;
  state_ = &state;
  grad_norms_ = &grad_norms;
}

const CheckpointState* TrialCheckpointing::restore(int64_t max_steps) {
  if (!active() || !policy_.resume || !checkpoint_exists(dir_)) return nullptr;
  restored_ = load_checkpoint(dir_, *network_, *algorithm_, identity_);
  RunnerState& state = *state_;
  const double time_budget = state.time_budget, last_eval_time = state.last_eval_time;  // this run's
  state = restored_->runner;
  state.time_budget = time_budget;
  state.last_eval_time = last_eval_time;
  last_step_ = state.step;
  *grad_norms_ = restored_->grad_norms_since_eval;
  preemption_count_ = restored_->preemption_count + 1;
  if (max_steps > 0 && state.step > max_steps) {
    throw InputError("checkpoint: " + dir_ + "/state.json: impossible value: step " + std::to_string(state.step) +
                     " is past --max-steps " + std::to_string(max_steps));
  }
  const std::string key = "validation/" + spec_.target_metric;
  for (const auto& e : state.evals) {
    const auto it = e.metrics.find(key);
    if (it != e.metrics.end() && std::isfinite(it->second) &&
        (!best_validation_ || spec_.reached(it->second, *best_validation_, true))) {
      best_validation_ = it->second;
    }
  }
  return &*restored_;
}

void TrialCheckpointing::start(double now, std::function<int64_t()> batches_consumed) {
  batches_consumed_ = std::move(batches_consumed);
  start_ = last_time_ = now;
  if (restored_) start_ -= restored_->total_duration;  // total_duration continues
}

CheckpointState TrialCheckpointing::snapshot(double now) const {
  const RunnerState& state = *state_;
  CheckpointState s = identity_;
  s.runner = state;
  s.batches_consumed = batches_consumed_ ? batches_consumed_() : 0;
  s.total_duration = now - start_;
  s.preemption_count = preemption_count_;
  s.grad_norms_since_eval = *grad_norms_;
  return s;
}

void TrialCheckpointing::keep_if_best(const EvalRecord& record) {
  if (!policy_.keep_best || !active()) return;
  const auto it = record.metrics.find("validation/" + spec_.target_metric);
  if (it == record.metrics.end() || !std::isfinite(it->second)) return;
  if (best_validation_ && !spec_.reached(it->second, *best_validation_, true)) return;
  best_validation_ = it->second;
  save_checkpoint(out_dir_ + "/checkpoint_best", snapshot(clock_.now()), *network_, *algorithm_);
}

void TrialCheckpointing::maybe_save() {
  if (!active()) return;
  const double now = clock_.now();
  const bool due = (policy_.every_steps > 0 && state_->step - last_step_ >= policy_.every_steps) ||
                   (policy_.every_sec > 0 && now - last_time_ >= policy_.every_sec);
  if (!due) return;
  save_checkpoint(dir_, snapshot(now), *network_, *algorithm_);
  state_->accumulated_logging_time += clock_.now() - now;
  last_step_ = state_->step;
  last_time_ = clock_.now();
}

}  // namespace pacer
