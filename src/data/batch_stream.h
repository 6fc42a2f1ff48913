#pragma once
// An endless, deterministic stream of training batches: the example order is reshuffled every
// epoch from (seed, epoch); the last incomplete global batch of an epoch is dropped. With
// world_size > 1 each rank gets its slice of the same global batch, so the ranks together see
// exactly what one process would see. Batches are gathered on a background thread, `prefetch`
// batches ahead, so the training step does not wait on data.
//
//   pacer::BatchStream stream(train_set, {.batch_size = 256, .seed = 7});
//   pacer::Batch b = stream.next();
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/export.h"
#include "data/batch.h"
#include "data/tensor_dataset.h"

namespace pacer {

struct PACER_API BatchStreamOptions {
  int64_t batch_size = 128;  // global batch size, over all ranks
  uint64_t seed = 0;
  int64_t rank = 0;
  int64_t world_size = 1;
  int64_t prefetch = 2;  // 0: gather on the caller's thread
  int64_t start_index = 0;  // the first global batch: a resumed trial continues where it stopped
};

class PACER_API BatchStream {
 public:
  BatchStream(TensorDataset dataset, BatchStreamOptions options);
  ~BatchStream();
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  Batch next();
  // Global batches handed out so far, counting from 0 (start_index included): the position a
  // checkpoint records.
  int64_t position() const { return consumed_.load(); }
  // The example indices of global batch `index` for this rank (pure function; for tests and
  // for algorithms that select data themselves).
  std::vector<int64_t> shard_indices(int64_t index) const;
  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  int64_t shard_size() const;
  const BatchStreamOptions& options() const { return options_; }

 private:
  Batch gather(int64_t index) const;
  void produce();
  const std::vector<int64_t>& epoch_order(int64_t epoch) const;

  TensorDataset dataset_;
  BatchStreamOptions options_;
  int64_t batches_per_epoch_ = 0;
  int64_t next_index_ = 0;  // consumer side (synchronous mode)
  std::atomic<int64_t> consumed_{0};

  // Memo of the latest epoch's permutation. shard_indices may run on the caller's thread and the
  // gathering thread at once, so the memo is guarded.
  mutable std::mutex order_mutex_;
  mutable int64_t cached_epoch_ = -1;
  mutable std::vector<int64_t> cached_order_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> queue_;
  std::exception_ptr error_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace pacer
