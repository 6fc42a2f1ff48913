#pragma once
// A Communicator whose ranks are threads of one process: the communicator of virtual workers, so
// that K virtual workers run the very combiner code K processes run. Sums are taken in rank
// order, so every rank gets bit-identical results. If one rank throws, the group is aborted and
// the others' pending calls throw too, instead of waiting forever. Data moves outside the group's
// lock, so the ranks copy and add on every core at once; an exchange reads the partner's tensor
// in place (one copy per message, not a copy into a mailbox and another out of it).
//
//   pacer::run_in_process(4, [&](pacer::Communicator& comm) {
//     comm.allreduce_sum(buffers[comm.rank()]);
//   });
//
//   pacer::InProcessRanks ranks(4);  // a loop: the same threads for every call
//   for (int step = 0; step < 1000; ++step) ranks.run([&](pacer::Communicator& comm) { ... });
//
//   pacer::InProcessRanks fibers(256, pacer::RankScheduling::fibers);  // the ranks as fibers of this thread
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/fiber_scheduler.h"

namespace pacer {

// The state the ranks of one group share.
class InProcessGroup {
 public:
  // `cooperative`: the ranks are fibers of one thread (FiberScheduler), which wait by yielding.
  explicit InProcessGroup(int size, bool cooperative = false);
  int size() const { return size_; }
  void abort();  // wakes every waiting rank with an Error

 private:
  friend class InProcessCommunicator;
  // A barrier over all ranks; an aborted group makes it throw. One that ends a phase in which
  // ranks read each other's tensors is not `abortable`: no rank may leave it, and free its tensor,
  // while another still reads that tensor. Every rank passed the barrier before such a phase, so
  // every rank arrives.
  void arrive_and_wait(std::unique_lock<std::mutex>& lock, bool abortable = true);
  // Waits, the lock held, until `ready()`: on `condition` (threads), or yielding to the other
  // fibers with the lock released (cooperative: a fiber that kept it would block them all).
  template <class Ready>
  void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& condition, Ready ready);

  const int size_;
  const bool cooperative_;
  std::mutex mutex_;
  std::condition_variable changed_;  // barriers
  // One per rank, notified by a send to that rank only: with a single condition every send woke
  // all K ranks to re-check their mailboxes and sleep again, at each of Adasum's 15 message rounds
  // per step (a few percent of a K=8 step on 2 cores: docs/data_parallel.md).
  std::vector<std::condition_variable> inbox_changed_;
  bool aborted_ = false;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<at::Tensor*> slots_;  // each rank's tensor during a collective
  at::Tensor shared_;               // a collective's result

  // A message: a copy the sender made (send), or the sender's own tensor, which it keeps intact
  // until the receiver has read it (exchange).
  struct Message {
    at::Tensor tensor;
    bool borrowed = false;
  };
  std::map<std::tuple<int, int, int>, std::deque<Message>> mailboxes_;  // (from, to, tag)
  // Per rank: whether the tensor its pending exchange lent has been read. A rank lends at most
  // one at a time, since exchange() waits for it.
  std::vector<char> lent_read_;
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
  void check_peer(int peer, const char* what) const;  // Error for a rank outside the group, or itself
  // Runs `read`, which reads other ranks' tensors, outside the lock, then waits until every rank
  // has finished its own before rethrowing what `read` threw.
  void read_peers_then_meet(std::unique_lock<std::mutex>& lock, const std::function<void()>& read);
  // Takes the next message from `peer` and copies it into `in`, unless writing `in` now could
  // change a tensor still to be read (the message itself, or `lent`, this rank's tensor the peer
  // may not have read yet): then it returns a copy, to be written once the reading is over.
  at::Tensor take(at::Tensor& in, int peer, int tag, const at::Tensor* lent);
  std::shared_ptr<InProcessGroup> group_;
  int rank_;
};

// How the ranks of InProcessRanks run: each on its own thread (they may compute at once), or as
// fibers of the calling thread, one at a time, switched without the kernel (the cheaper when the
// ranks are many for the cores: docs/data_parallel.md, "Virtual workers as fibers"). The results
// are the same bits either way: each rank runs the same arithmetic on the same operands.
enum class RankScheduling { threads, fibers };

// `size` ranks on threads that live as long as this object: rank 0 is the caller's thread, the
// others wait for work. Each run() is a fresh group. Threads are kept rather than started per call
// because LibTorch re-creates its global thread pool (caffe2's pthreadpool) the first time each
// new thread runs a parallel kernel: with more than one intra-op thread, a new thread per step cost
// virtual workers 20x their step time. With RankScheduling::fibers: no threads, `size` fiber
// stacks kept instead.
class InProcessRanks {
 public:
  explicit InProcessRanks(int size, RankScheduling scheduling = RankScheduling::threads);
  ~InProcessRanks();  // joins the threads
  InProcessRanks(const InProcessRanks&) = delete;
  InProcessRanks& operator=(const InProcessRanks&) = delete;
  int size() const { return size_; }
  // Runs `body` on every rank and rethrows the first error (not the aborts it caused elsewhere).
  void run(const std::function<void(Communicator&)>& body);

 private:
  void serve(int rank);
  void run_rank(int rank);

  const int size_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(Communicator&)>* body_ = nullptr;
  std::shared_ptr<InProcessGroup> group_;
  uint64_t round_ = 0;
  int finished_ = 0;
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
  std::unique_ptr<FiberScheduler> fibers_;  // RankScheduling::fibers
};

// Runs `body` on `size` ranks of a fresh group (threads, or fibers of this thread), and rethrows
// the first error.
void run_in_process(int size, const std::function<void(Communicator&)>& body,
                    RankScheduling scheduling = RankScheduling::threads);

}  // namespace pacer
