#include "algorithms/baseline_algorithm.h"

#include "algorithms/update_rules.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include "core/error.h"
#include "core/seed.h"
#include "dist/in_process_communicator.h"

namespace pacer {

std::vector<HyperparameterSpec> BaselineAlgorithm::common_specs() {
  return {
      {"label_smoothing", 0.0, 0.0, 0.99, "label smoothing of the cross-entropy loss"},
      {"dropout_rate", 0.0, 0.0, 0.99, "dropout rate passed to the model"},
      {"grad_clip", 0.0, 0.0, 1e12, "clip the global gradient norm to this value (0: off)"},
  };
}

void BaselineAlgorithm::init_optimizer_state(const Workload& workload, Network& network,
                                             const Hyperparameters* hparams, uint64_t /*seed*/) {
  // Under self-tuning no hyperparameters are given: the algorithm sets its own (its defaults).
  hparams_ = resolve_hyperparameters(hyperparameter_specs(), hparams ? *hparams : Hyperparameters{}, name());
  flat_ = FlatParameters(network);
  schedule_ = make_schedule(hparams_, workload.spec());
  label_smoothing_ = hparams_.get_or("label_smoothing", 0.0);
  dropout_rate_ = hparams_.get_or("dropout_rate", 0.0);
  grad_clip_ = hparams_.get_or("grad_clip", 0.0);
  configure(hparams_);
}

void BaselineAlgorithm::set_data_parallel(std::shared_ptr<const DataParallelPlan> plan) {
  if (!plan || !plan->combiner) throw Error(name() + ": a data-parallel plan needs a gradient combiner");
  if (plan->virtual_workers < 1) throw InputError("--virtual-workers must be at least 1");
  if (plan->virtual_workers > 1 && plan->processes() > 1) {
    throw InputError("--virtual-workers runs inside one process; with " + std::to_string(plan->processes()) +
                     " processes, use one or the other");
  }
  plan_ = std::move(plan);
  numels_.clear();
  for (const auto& slice : flat_.slices()) numels_.push_back(slice.numel);
  worker_buffers_.clear();
  for (int k = 0; k < plan_->virtual_workers && plan_->virtual_workers > 1; ++k) {
    worker_buffers_.push_back(at::empty_like(flat_.grads()));
  }
}

at::Tensor BaselineAlgorithm::backward_on(const Workload& workload, Network& network, const Batch& batch) {
  flat_.zero_grad();
  at::Tensor outputs = workload.model_fn(network, batch.inputs, ForwardMode::train, dropout_rate_);
  at::Tensor loss = workload.loss_fn(batch.targets, outputs, batch.weights, label_smoothing_).mean();
  torch::autograd::backward({loss});
  return loss.detach();
}

UpdateResult BaselineAlgorithm::update(const Workload& workload, Network& network, const Batch& batch,
                                       const StepContext& context) {
  if (plan_) return data_parallel_update(workload, network, batch, context);
  at::Tensor loss = backward_on(workload, network, batch);
  at::NoGradGuard no_grad;
  if (grad_clip_ > 0.0) clip_grad_norm(flat_.grads(), grad_clip_);
  apply_update(flat_.values(), flat_.grads(), schedule_.at(context.step));
  return {loss, false};
}

// Worker w (global index over processes and virtual workers) computes the gradient of the mean
// loss on its shard of the global batch, with its own dropout seed, so K processes and K virtual
// workers see the same shards and draw the same masks.
UpdateResult BaselineAlgorithm::data_parallel_update(const Workload& workload, Network& network, const Batch& batch,
                                                     const StepContext& context) {
  const DataParallelPlan& plan = *plan_;
  const double lr = schedule_.at(context.step);
  const uint64_t dropout_base = derive_seed(context.step_seed, SeedStream::dropout);
  const int k_workers = plan.virtual_workers;

  if (k_workers == 1) {  // processes: `batch` is this rank's shard
    at::manual_seed(derive_seed(dropout_base, static_cast<uint64_t>(plan.rank()) + 1));
    at::Tensor loss = backward_on(workload, network, batch);
    at::NoGradGuard no_grad;
    std::unique_ptr<Communicator> solo;  // one process, one worker: combining is the identity
    if (!plan.communicator) solo = std::make_unique<InProcessCommunicator>(std::make_shared<InProcessGroup>(1), 0);
    Communicator& c = plan.communicator ? *plan.communicator : *solo;
    if (plan.combine_deltas) {
      if (grad_clip_ > 0.0) clip_grad_norm(flat_.grads(), grad_clip_);
      at::Tensor before = flat_.values().clone();
      apply_update(flat_.values(), flat_.grads(), lr);
      at::Tensor delta = flat_.values() - before;
      plan.combiner->combine(c, delta, numels_);
      flat_.values().copy_(before.add_(delta));
    } else {
      plan.combiner->combine(c, flat_.grads(), numels_);
      if (grad_clip_ > 0.0) clip_grad_norm(flat_.grads(), grad_clip_);
      apply_update(flat_.values(), flat_.grads(), lr);
    }
    return {loss, false};
  }

  const int64_t n = batch.size();
  if (n % k_workers != 0) {
    throw InputError("batch size " + std::to_string(n) + " does not split into " + std::to_string(k_workers) +
                     " equal virtual-worker shards");
  }
  const int64_t shard = n / k_workers;
  at::Tensor loss_sum;
  at::Tensor before;
  if (plan.combine_deltas) {
    at::NoGradGuard no_grad;
    before = flat_.values().clone();
  }
  for (int k = 0; k < k_workers; ++k) {
    Batch part{batch.inputs.narrow(0, k * shard, shard), batch.targets.narrow(0, k * shard, shard),
               batch.weights.defined() ? batch.weights.narrow(0, k * shard, shard) : at::Tensor()};
    at::manual_seed(derive_seed(dropout_base, static_cast<uint64_t>(k) + 1));
    at::Tensor loss = backward_on(workload, network, part);
    loss_sum = loss_sum.defined() ? loss_sum + loss : loss;
    at::NoGradGuard no_grad;
    at::Tensor& buffer = worker_buffers_[static_cast<size_t>(k)];
    if (plan.combine_deltas) {  // the worker's local step from the common starting point
      if (grad_clip_ > 0.0) clip_grad_norm(flat_.grads(), grad_clip_);
      buffer.copy_(before);
      swap_update_state(k);
      apply_update(buffer, flat_.grads(), lr);
      swap_update_state(k);
      buffer.sub_(before);
    } else {
      buffer.copy_(flat_.grads());
    }
  }
  at::NoGradGuard no_grad;
  run_in_process(k_workers, [&](Communicator& comm) {
    plan.combiner->combine(comm, worker_buffers_[static_cast<size_t>(comm.rank())], numels_);
  });
  if (plan.combine_deltas) {
    flat_.values().copy_(before.add_(worker_buffers_[0]));
  } else {
    flat_.grads().copy_(worker_buffers_[0]);
    if (grad_clip_ > 0.0) clip_grad_norm(flat_.grads(), grad_clip_);
    apply_update(flat_.values(), flat_.grads(), lr);
  }
  return {loss_sum / static_cast<double>(k_workers), false};
}

}  // namespace pacer
