#pragma once
// A Communicator over a c10d process group from LibTorch: Gloo (CPU tensors) or NCCL (CUDA
// tensors, only where LibTorch was built with it), rendezvous through a c10d TCPStore at
// MASTER_ADDR:MASTER_PORT served by rank 0. Every collective has the given timeout; a peer that
// died makes the next operation fail with an Error (Gloo notices a closed connection at once).
// The c10d headers stay in the .cpp, which is also the one place that knows how c10d differs
// between LibTorch 1.13 and 2.x.
//
//   pacer::DistEnvironment env = pacer::DistEnvironment::from_environment();
//   pacer::C10dCommunicator comm(env, {.backend = "gloo"});
//   comm.allreduce_sum(grads);
#include <chrono>
#include <memory>
#include <string>

#include "distributed/communicator.h"
#include "distributed/dist_environment.h"

namespace pacer {

struct C10dOptions {
  std::string backend = "gloo";             // "gloo" or "nccl"
  std::chrono::milliseconds timeout{120000};  // rendezvous and every collective
};

class C10dCommunicator : public Communicator {
 public:
  C10dCommunicator(const DistEnvironment& env, const C10dOptions& options);
  ~C10dCommunicator() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return options_.backend; }
  void allreduce_sum(at::Tensor& tensor) override;
  void broadcast(at::Tensor& tensor, int root) override;
  void exchange(const at::Tensor& out, at::Tensor& in, int peer, int tag) override;
  void send(const at::Tensor& tensor, int peer, int tag) override;
  void recv(at::Tensor& tensor, int peer, int tag) override;
  void barrier() override;

  static bool nccl_available();  // LibTorch was built with NCCL
  static bool gloo_available();  // built with Gloo's headers (a pip wheel ships none)

  class Group;  // the process group, behind the .cpp

 private:
  int rank_ = 0, size_ = 1;
  C10dOptions options_;
  std::unique_ptr<Group> group_;
};

// The communicator of a process that a launcher started as one rank of several, or nullptr when
// `env` says this process runs alone. backend "auto": NCCL when the trial runs on CUDA, else Gloo.
std::shared_ptr<Communicator> make_process_communicator(const DistEnvironment& env, const std::string& backend,
                                                        double timeout_sec, bool cuda_device);

}  // namespace pacer
