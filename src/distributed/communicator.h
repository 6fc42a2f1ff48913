#pragma once
// The collectives a data-parallel step needs, over some group of ranks. Implementations: c10d
// (Gloo on CPU, NCCL on GPU) across processes, and an in-process group whose ranks are threads
// (virtual workers), so the gradient combiners are one piece of code for both.
//
//   void average(pacer::Communicator& comm, at::Tensor& grads) {
//     comm.allreduce_sum(grads);
//     grads.div_(comm.size());
//   }
//
// Tensors are contiguous and have the same shape and dtype on every rank. Every call blocks until
// this rank's part is done; a failed or timed-out peer raises pacer::Error naming the operation.
#include <ATen/core/Tensor.h>

#include <string>

namespace pacer {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // "gloo", "nccl", "in-process"

  virtual void allreduce_sum(at::Tensor& tensor) = 0;            // in place, every rank gets the sum
  virtual void broadcast(at::Tensor& tensor, int root) = 0;      // in place
  // Sends `out` to `peer` and receives the peer's tensor into `in`; both are posted before either
  // is waited on, so two ranks exchanging with each other cannot deadlock.
  virtual void exchange(const at::Tensor& out, at::Tensor& in, int peer, int tag) = 0;
  virtual void send(const at::Tensor& tensor, int peer, int tag) = 0;
  virtual void recv(at::Tensor& tensor, int peer, int tag) = 0;
  virtual void barrier() = 0;
};

}  // namespace pacer
