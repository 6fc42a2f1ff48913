#include "data/batch_stream.h"

#include <ATen/ATen.h>

#include <random>

#include "core/error.h"
#include "core/seed.h"

namespace pacer {

BatchStream::BatchStream(TensorDataset dataset, BatchStreamOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  if (options_.batch_size <= 0) throw InputError("batch size must be positive");
  if (options_.world_size <= 0 || options_.rank < 0 || options_.rank >= options_.world_size) {
    throw InputError("invalid rank " + std::to_string(options_.rank) + " for world size " +
                     std::to_string(options_.world_size));
  }
  if (options_.batch_size < options_.world_size) {
    throw InputError("global batch size " + std::to_string(options_.batch_size) +
                     " is smaller than the number of workers " + std::to_string(options_.world_size));
  }
  if (options_.batch_size > dataset_.size()) {
    throw InputError("batch size " + std::to_string(options_.batch_size) + " exceeds the " +
                     std::to_string(dataset_.size()) + " training examples");
  }
  batches_per_epoch_ = dataset_.size() / options_.batch_size;
  if (options_.start_index < 0) throw InputError("batch stream: negative start index");
  next_index_ = options_.start_index;
  consumed_ = options_.start_index;
  if (options_.prefetch > 0) worker_ = std::thread([this] { produce(); });
}

BatchStream::~BatchStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

int64_t BatchStream::shard_size() const {
  const int64_t base = options_.batch_size / options_.world_size;
  return base + (options_.rank < options_.batch_size % options_.world_size ? 1 : 0);
}

const std::vector<int64_t>& BatchStream::epoch_order(int64_t epoch) const {
  if (epoch != cached_epoch_) {
    cached_order_.resize(static_cast<size_t>(dataset_.size()));
    for (int64_t i = 0; i < dataset_.size(); ++i) cached_order_[static_cast<size_t>(i)] = i;
    // Own Fisher-Yates with an explicitly specified engine: the order must not depend on the
    // standard library's shuffle implementation.
    std::mt19937_64 rng(derive_seed(derive_seed(options_.seed, SeedStream::data_order), static_cast<uint64_t>(epoch)));
    for (size_t i = cached_order_.size() - 1; i > 0; --i) {
      size_t j = static_cast<size_t>(rng() % (i + 1));
      std::swap(cached_order_[i], cached_order_[j]);
    }
    cached_epoch_ = epoch;
  }
  return cached_order_;
}

std::vector<int64_t> BatchStream::shard_indices(int64_t index) const {
  const int64_t epoch = index / batches_per_epoch_;
  const int64_t within = index % batches_per_epoch_;
  std::lock_guard<std::mutex> lock(order_mutex_);
  const auto& order = epoch_order(epoch);
  const int64_t w = options_.world_size, r = options_.rank, b = options_.batch_size;
  // Rank r takes a contiguous slice; the first (b % w) ranks take one extra example.
  const int64_t begin = r * (b / w) + std::min(r, b % w);
  const int64_t start = within * b + begin;
  return std::vector<int64_t>(order.begin() + start, order.begin() + start + shard_size());
}

Batch BatchStream::gather(int64_t index) const {
  std::vector<int64_t> indices = shard_indices(index);
  const at::Tensor on_host = at::from_blob(indices.data(), {static_cast<int64_t>(indices.size())}, at::kLong);
  // To a GPU from pinned memory, asynchronously: a copy from pageable memory would make this
  // prefetch thread wait for all the work the training thread has queued on the device.
  const bool gpu = dataset_.inputs.device().is_cuda();
  at::Tensor idx = gpu ? on_host.pin_memory().to(dataset_.inputs.device(), /*non_blocking=*/true)
                       : on_host.to(dataset_.inputs.device());
  Batch batch;
  batch.inputs = dataset_.inputs.index_select(0, idx);
  batch.targets = dataset_.targets.index_select(0, idx);
  return batch;
}

void BatchStream::produce() {
  int64_t index = options_.start_index;
  try {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return stop_ || static_cast<int64_t>(queue_.size()) < options_.prefetch; });
        if (stop_) return;
      }
      Batch batch = gather(index++);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(batch));
      }
      changed_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::current_exception();
    changed_.notify_all();
  }
}

Batch BatchStream::next() {
  ++consumed_;
  if (options_.prefetch <= 0) return gather(next_index_++);
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !queue_.empty() || error_; });
  if (queue_.empty()) std::rethrow_exception(error_);
  Batch batch = std::move(queue_.front());
  queue_.pop_front();
  lock.unlock();
  changed_.notify_all();
  return batch;
}

}  // namespace pacer
