#include "distributed/in_process_communicator.h"

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <exception>

#include "core/error.h"

namespace pacer {
namespace {

[[noreturn]] void throw_aborted() { throw Error("in-process group aborted: another virtual worker failed"); }

// "Too hard to tell" counts as overlapping: the cost is a copy, never a wrong result.
bool may_overlap(const at::Tensor& a, const at::Tensor& b) {
  return at::get_overlap_status(a, b) != at::MemOverlapStatus::No;
}

// Rank `rank`'s share [lo, hi) of a collective over `numel` elements.
std::pair<int64_t, int64_t> share_of(int rank, int size, int64_t numel) {
  return {numel * rank / size, numel * (rank + 1) / size};
}

}  // namespace

InProcessGroup::InProcessGroup(int size, bool cooperative)
    : size_(size),
      cooperative_(cooperative),
      inbox_changed_(static_cast<size_t>(std::max(size, 0))),
      slots_(static_cast<size_t>(std::max(size, 0)), nullptr),
      lent_read_(static_cast<size_t>(std::max(size, 0)), 0) {
  if (size < 1) throw InputError("an in-process group needs at least one rank");
}

void InProcessGroup::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  aborted_ = true;
  changed_.notify_all();
  for (auto& inbox : inbox_changed_) inbox.notify_all();
}

template <class Ready>
void InProcessGroup::wait(std::unique_lock<std::mutex>& lock, std::condition_variable& condition, Ready ready) {
  if (!cooperative_) {
    condition.wait(lock, ready);
    return;
  }
  while (!ready()) {
    lock.unlock();
    FiberScheduler::yield();
    lock.lock();
  }
}

void InProcessGroup::arrive_and_wait(std::unique_lock<std::mutex>& lock, bool abortable) {
  if (aborted_ && abortable) throw_aborted();
  const uint64_t generation = generation_;
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    changed_.notify_all();
    return;
  }
  wait(lock, changed_, [&] { return generation_ != generation || (aborted_ && abortable); });
  if (generation_ == generation) throw_aborted();
}

InProcessCommunicator::InProcessCommunicator(std::shared_ptr<InProcessGroup> group, int rank)
    : group_(std::move(group)), rank_(rank) {}

void InProcessCommunicator::read_peers_then_meet(std::unique_lock<std::mutex>& lock,
                                                 const std::function<void()>& read) {
  std::exception_ptr error;
  lock.unlock();
  try {
    read();
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  group_->arrive_and_wait(lock, /*abortable=*/false);
  if (error) std::rethrow_exception(error);
}

void InProcessCommunicator::allreduce_sum(at::Tensor& tensor) {
  InProcessGroup& g = *group_;
  std::unique_lock<std::mutex> lock(g.mutex_);
  g.slots_[static_cast<size_t>(rank_)] = &tensor;
  if (rank_ == 0) g.shared_ = at::empty_like(tensor);
  g.arrive_and_wait(lock);
  // Each rank sums its share of the elements over all ranks, in rank order (so every rank gets
  // the same bits), outside the lock: the ranks add on every core at once, where one rank used to
  // sum everything while the others waited, then copied one at a time under the lock.
  // Fibers run one at a time, so shares buy no parallelism there, only K x K small additions whose
  // per-call cost dominated at K=256 (65,536 calls for 118,282 floats): rank 0 sums all of it,
  // K calls, in the same rank order, so the same bits.
  read_peers_then_meet(lock, [&] {
    const int shares = g.cooperative_ ? 1 : g.size_;
    if (rank_ >= shares) return;
    const auto [lo, hi] = share_of(rank_, shares, tensor.numel());
    if (lo >= hi) return;
    at::Tensor sum = g.shared_.view(-1).narrow(0, lo, hi - lo);
    sum.copy_(g.slots_[0]->view(-1).narrow(0, lo, hi - lo));
    for (int r = 1; r < g.size_; ++r) sum.add_(g.slots_[static_cast<size_t>(r)]->view(-1).narrow(0, lo, hi - lo));
  });
  lock.unlock();
  tensor.copy_(g.shared_);  // the group's own tensor: a rank that has left does not free it
  lock.lock();
  g.arrive_and_wait(lock);  // nobody reuses the slots or the sum before all have copied
  if (rank_ == 0) g.shared_ = at::Tensor();
}

void InProcessCommunicator::broadcast(at::Tensor& tensor, int root) {
  InProcessGroup& g = *group_;
  std::unique_lock<std::mutex> lock(g.mutex_);
  g.slots_[static_cast<size_t>(rank_)] = &tensor;
  g.arrive_and_wait(lock);
  read_peers_then_meet(lock, [&] {
    if (rank_ != root) tensor.copy_(*g.slots_[static_cast<size_t>(root)]);
  });
}

void InProcessCommunicator::check_peer(int peer, const char* what) const {
  if (peer < 0 || peer >= group_->size_ || peer == rank_) {
    throw Error(std::string("in-process ") + what + ": rank " + std::to_string(rank_) + " has no peer " +
                std::to_string(peer) + " in a group of " + std::to_string(group_->size_));
  }
}

void InProcessCommunicator::send(const at::Tensor& tensor, int peer, int tag) {
  check_peer(peer, "send");
  InProcessGroup& g = *group_;
  at::Tensor copy = tensor.clone();  // the sender may overwrite its buffer right away
  std::lock_guard<std::mutex> lock(g.mutex_);
  g.mailboxes_[{rank_, peer, tag}].push_back({std::move(copy), false});
  g.inbox_changed_[static_cast<size_t>(peer)].notify_all();  // its one waiting thread
}

at::Tensor InProcessCommunicator::take(at::Tensor& in, int peer, int tag, const at::Tensor* lent) {
  InProcessGroup& g = *group_;
  InProcessGroup::Message message;
  {
    std::unique_lock<std::mutex> lock(g.mutex_);
    auto& box = g.mailboxes_[{peer, rank_, tag}];
    g.wait(lock, g.inbox_changed_[static_cast<size_t>(rank_)], [&] { return !box.empty() || g.aborted_; });
    if (box.empty()) throw_aborted();
    message = std::move(box.front());
    box.pop_front();
  }
  at::Tensor later;
  if ((message.borrowed && may_overlap(in, message.tensor)) || (lent && may_overlap(in, *lent))) {
    later = message.tensor.clone();
  } else {
    in.copy_(message.tensor);
  }
  if (message.borrowed) {
    message.tensor = at::Tensor();
    std::lock_guard<std::mutex> lock(g.mutex_);
    g.lent_read_[static_cast<size_t>(peer)] = 1;
    g.inbox_changed_[static_cast<size_t>(peer)].notify_all();
  }
  return later;
}

void InProcessCommunicator::recv(at::Tensor& tensor, int peer, int tag) {
  check_peer(peer, "recv");
  at::Tensor later = take(tensor, peer, tag, nullptr);
  if (later.defined()) tensor.copy_(later);
}

void InProcessCommunicator::exchange(const at::Tensor& out, at::Tensor& in, int peer, int tag) {
  check_peer(peer, "exchange");
  InProcessGroup& g = *group_;
  {
    std::lock_guard<std::mutex> lock(g.mutex_);
    g.lent_read_[static_cast<size_t>(rank_)] = 0;
    g.mailboxes_[{rank_, peer, tag}].push_back({out, true});
    g.inbox_changed_[static_cast<size_t>(peer)].notify_all();
  }
  at::Tensor later = take(in, peer, tag, &out);
  {
    std::unique_lock<std::mutex> lock(g.mutex_);
    g.wait(lock, g.inbox_changed_[static_cast<size_t>(rank_)],
           [&] { return g.lent_read_[static_cast<size_t>(rank_)] || g.aborted_; });
    if (!g.lent_read_[static_cast<size_t>(rank_)]) throw_aborted();
  }
  if (later.defined()) in.copy_(later);  // the peer has read `out`: `in` may change now
}

void InProcessCommunicator::barrier() {
  std::unique_lock<std::mutex> lock(group_->mutex_);
  group_->arrive_and_wait(lock);
}

InProcessRanks::InProcessRanks(int size, RankScheduling scheduling)
    : size_(size), errors_(static_cast<size_t>(std::max(size, 1))) {
  if (size < 1) throw InputError("in-process ranks: need at least one rank");
  if (scheduling == RankScheduling::fibers) {
    fibers_ = std::make_unique<FiberScheduler>(size);
    return;
  }
  threads_.reserve(static_cast<size_t>(size - 1));
  for (int r = 1; r < size; ++r) threads_.emplace_back([this, r] { serve(r); });
}

InProcessRanks::~InProcessRanks() {
  if (fibers_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void InProcessRanks::run_rank(int rank) {
  try {
    at::NoGradGuard no_grad;  // grad mode is per thread
    InProcessCommunicator comm(group_, rank);
    (*body_)(comm);
  } catch (...) {
    errors_[static_cast<size_t>(rank)] = std::current_exception();
    group_->abort();
  }
}

void InProcessRanks::serve(int rank) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || round_ != seen; });
      if (stopping_) return;
      seen = round_;
    }
    run_rank(rank);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++finished_;
    }
    done_.notify_one();
  }
}

void InProcessRanks::run(const std::function<void(Communicator&)>& body) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    group_ = std::make_shared<InProcessGroup>(size_, fibers_ != nullptr);
    body_ = &body;
    finished_ = 0;
    for (auto& e : errors_) e = nullptr;
    ++round_;
  }
  if (fibers_) {
    // Grad mode is per thread, and the fibers share this one: set once around them all, so that
    // each rank's own guard saves and restores the same value whatever order they end in.
    at::NoGradGuard no_grad;
    fibers_->run([this](int rank) { run_rank(rank); });
    body_ = nullptr;
  } else {
    wake_.notify_all();
    run_rank(0);  // rank 0 on the caller's thread
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return finished_ == size_ - 1; });
    body_ = nullptr;
  }
  // The first error that is not just the abort it caused in the other ranks.
  std::exception_ptr first;
  for (const auto& e : errors_) {
    if (!e) continue;
    if (!first) first = e;
    try {
      std::rethrow_exception(e);
    } catch (const Error& err) {
      if (std::string(err.what()).find("in-process group aborted") == std::string::npos) {
        first = e;
        break;
      }
    } catch (...) {
      first = e;
      break;
    }
  }
  if (first) std::rethrow_exception(first);
}

void run_in_process(int size, const std::function<void(Communicator&)>& body, RankScheduling scheduling) {
  InProcessRanks(size, scheduling).run(body);
}

}  // namespace pacer
