#pragma once
// A Communicator whose ranks are threads of one process: the communicator of virtual workers, so
// that K virtual workers run the very combiner code K processes run. Sums are taken in rank
// order, so every rank gets bit-identical results. If one rank throws, the group is aborted and
// the others' pending calls throw too, instead of waiting forever.
//
//   pacer::run_in_process(4, [&](pacer::Communicator& comm) {
//     comm.allreduce_sum(buffers[comm.rank()]);
//   });
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "dist/communicator.h"

namespace pacer {

// The state the ranks of one group share.
class InProcessGroup {
 public:
  explicit InProcessGroup(int size);
  int size() const { return size_; }
  void abort();  // wakes every waiting rank with an Error

 private:
  friend class InProcessCommunicator;
  void arrive_and_wait(std::unique_lock<std::mutex>& lock);  // a barrier over all ranks

  const int size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool aborted_ = false;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<at::Tensor*> slots_;  // each rank's tensor during a collective
  at::Tensor shared_;               // a collective's result
  std::map<std::tuple<int, int, int>, std::deque<at::Tensor>> mailboxes_;  // (from, to, tag)
};

class InProcessCommunicator : public Communicator {
 public:
  InProcessCommunicator(std::shared_ptr<InProcessGroup> group, int rank);
  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  std::string backend() const override { return "in-process"; }
  void allreduce_sum(at::Tensor& tensor) override;
  void broadcast(at::Tensor& tensor, int root) override;
  void exchange(const at::Tensor& out, at::Tensor& in, int peer, int tag) override;
  void send(const at::Tensor& tensor, int peer, int tag) override;
  void recv(at::Tensor& tensor, int peer, int tag) override;
  void barrier() override;

 private:
  std::shared_ptr<InProcessGroup> group_;
  int rank_;
};

// Runs `body` on `size` threads, one per rank of a fresh group, and rethrows the first error.
void run_in_process(int size, const std::function<void(Communicator&)>& body);

}  // namespace pacer
