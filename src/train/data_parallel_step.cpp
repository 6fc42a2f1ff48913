#include "train/data_parallel_step.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include "core/error.h"
#include "core/seed.h"
#include "distributed/in_process_communicator.h"
#include "runtime/global_generator_lease.h"

namespace pacer {

DataParallelStep::DataParallelStep(std::shared_ptr<const DataParallelPlan> plan, TrainingAlgorithm& algorithm,
                                   Network& network, std::vector<std::unique_ptr<TrainingAlgorithm>> workers)
    : plan_(std::move(plan)), algorithm_(algorithm), workers_(std::move(workers)), flat_(network) {
  if (!plan_ || !plan_->combiner) throw Error("a data-parallel plan needs a gradient combiner");
  const int k = plan_->virtual_workers;
  if (plan_->combine_deltas && k > 1 && workers_.size() != static_cast<size_t>(k - 1)) {
    throw Error("delta mode with " + std::to_string(k) + " virtual workers needs " + std::to_string(k - 1) +
                " more algorithm instances, got " + std::to_string(workers_.size()));
  }
  for (const auto& slice : flat_.slices()) numels_.push_back(slice.numel);
  for (int w = 0; w < k && k > 1; ++w) worker_buffers_.push_back(at::empty_like(flat_.grads()));
  // One intra-op thread: the rank threads could not compute at once anyway, and switching between
  // K of them through the kernel cost more than the combination (docs/data_parallel.md, "Virtual
  // workers as fibers").
  if (k > 1)
    ranks_ = std::make_unique<InProcessRanks>(k, at::get_num_threads() == 1 ? RankScheduling::fibers
                                                                            : RankScheduling::threads);
  if (!plan_->communicator) solo_ = std::make_unique<InProcessCommunicator>(std::make_shared<InProcessGroup>(1), 0);
}

void DataParallelStep::seed_worker(int worker) const {
  reseed_global_generator(derive_seed(dropout_base_, static_cast<uint64_t>(worker) + 1));  // inside the step's lease
}

Batch DataParallelStep::shard(const Batch& batch, int k) const {
  const int64_t n = batch.size(), workers = plan_->virtual_workers;
  if (n % workers != 0) {
    throw InputError("batch size " + std::to_string(n) + " does not split into " + std::to_string(workers) +
                     " equal virtual-worker shards");
  }
  const int64_t size = n / workers;
  return {batch.inputs.narrow(0, k * size, size), batch.targets.narrow(0, k * size, size),
          batch.weights.defined() ? batch.weights.narrow(0, k * size, size) : at::Tensor()};
}

UpdateResult DataParallelStep::update(const Workload& workload, Network& network, const Batch& batch,
                                      StepContext context) {
  dropout_base_ = derive_seed(context.step_seed, SeedStream::dropout);
  if (plan_->combine_deltas) return update_with_deltas(workload, network, batch, context);
  context.gradients = this;
  backward_calls_ = 0;
  UpdateResult result = algorithm_.update(workload, network, batch, context);
  if (backward_calls_ == 0) {
    throw InputError("algorithm '" + algorithm_.name() +
                     "' computed its gradient without the step context (step_gradients); data-parallel training "
                     "(--combine, --virtual-workers, processes) combines only gradients taken through it");
  }
  return result;
}

// Gradient mode: every worker's shard gradient, combined, left in the parameters' .grad().
at::Tensor DataParallelStep::backward(const Workload& workload, Network& network, const Batch& batch,
                                      const LossSettings& loss) {
  ++backward_calls_;
  const int k_workers = plan_->virtual_workers;
  if (k_workers == 1) {  // processes (or one worker): `batch` is this rank's shard
    seed_worker(plan_->rank());
    at::Tensor mean = local_backward(workload, network, batch, loss);
    at::NoGradGuard no_grad;
    plan_->combiner->combine(plan_->communicator ? *plan_->communicator : *solo_, flat_.grads(), numels_);
    return mean;
  }
  at::Tensor loss_sum;
  for (int k = 0; k < k_workers; ++k) {
    seed_worker(k);
    at::Tensor mean = local_backward(workload, network, shard(batch, k), loss);
    loss_sum = loss_sum.defined() ? loss_sum + mean : mean;
    at::NoGradGuard no_grad;
    worker_buffers_[static_cast<size_t>(k)].copy_(flat_.grads());
  }
  at::NoGradGuard no_grad;
  ranks_->run([&](Communicator& comm) {
    plan_->combiner->combine(comm, worker_buffers_[static_cast<size_t>(comm.rank())], numels_);
  });
  flat_.grads().copy_(worker_buffers_[0]);
  return loss_sum / static_cast<double>(k_workers);
}

// Delta mode: each worker's whole step from the same starting point, with its own state; the
// combined delta is applied to that starting point.
UpdateResult DataParallelStep::update_with_deltas(const Workload& workload, Network& network, const Batch& batch,
                                                  StepContext context) {
  context.gradients = nullptr;  // each worker's own, local gradient
  at::Tensor before;
  {
    at::NoGradGuard no_grad;
    before = flat_.values().clone();
  }
  const int k_workers = plan_->virtual_workers;
  if (k_workers == 1) {
    seed_worker(plan_->rank());
    UpdateResult result = algorithm_.update(workload, network, batch, context);
    at::NoGradGuard no_grad;
    at::Tensor delta = flat_.values() - before;
    plan_->combiner->combine(plan_->communicator ? *plan_->communicator : *solo_, delta, numels_);
    flat_.values().copy_(before.add_(delta));
    return result;
  }
  at::Tensor loss_sum, grad_norm_sum;
  bool complete = false;
  Metrics metric_sums;  // the algorithm's own metrics: their mean over the workers, as the loss
  for (int k = 0; k < k_workers; ++k) {
    {
      at::NoGradGuard no_grad;
      flat_.values().copy_(before);
    }
    seed_worker(k);
    TrainingAlgorithm& worker = k == 0 ? algorithm_ : *workers_[static_cast<size_t>(k - 1)];
    UpdateResult r = worker.update(workload, network, shard(batch, k), context);
    loss_sum = loss_sum.defined() ? loss_sum + r.loss : r.loss;
    if (r.grad_norm.defined()) grad_norm_sum = grad_norm_sum.defined() ? grad_norm_sum + r.grad_norm : r.grad_norm;
    complete = complete || r.training_complete;
    for (const auto& [name, value] : r.metrics) metric_sums[name] += value;
    at::NoGradGuard no_grad;
    at::sub_out(worker_buffers_[static_cast<size_t>(k)], flat_.values(), before);
  }
  at::NoGradGuard no_grad;
  ranks_->run([&](Communicator& comm) {
    plan_->combiner->combine(comm, worker_buffers_[static_cast<size_t>(comm.rank())], numels_);
  });
  flat_.values().copy_(before.add_(worker_buffers_[0]));
  // Each worker's own gradient norm: their mean (the combined gradient has no norm of its own here).
  at::Tensor grad_norm = grad_norm_sum.defined() ? grad_norm_sum / static_cast<double>(k_workers) : at::Tensor();
  for (auto& [name, sum] : metric_sums) sum /= static_cast<double>(k_workers);
  return {loss_sum / static_cast<double>(k_workers), complete, grad_norm, std::move(metric_sums)};
}

}  // namespace pacer
