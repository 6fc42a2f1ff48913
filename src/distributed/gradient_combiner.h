#pragma once
// How the workers' gradients (or update deltas) become one: every rank passes its flat buffer
// (tensors back to back, sizes in `numels`) and gets the combined buffer back in place. The
// same object serves processes (c10d) and virtual workers (in-process threads).
//
//   std::unique_ptr<pacer::GradientCombiner> combiner = pacer::make_gradient_combiner("adasum");
//   combiner->combine(comm, flat_grads, numels);   // on every rank
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/communicator.h"

namespace pacer {

class GradientCombiner {
 public:
  virtual ~GradientCombiner() = default;
  virtual std::string name() const = 0;
  virtual void combine(Communicator& comm, at::Tensor& flat, const std::vector<int64_t>& numels) = 0;
};

struct CombinerOptions {
  int64_t bucket_bytes = 25 << 20;  // mean/sum: allreduce in buckets of about this size (as DDP)
  // adasum: buffers up to this size take recursive doubling of whole vectors (log2 p message
  // rounds, for latency-bound sizes); larger ones vector-halving distance-doubling. Over Gloo on
  // loopback, 4 processes, whole vectors were 2x faster at 512K floats and 10-25% at 1M, even at
  // 1.5M and slower from 2M (docs/data_parallel.md, "Benchmarks"). Between threads (virtual
  // workers) a round costs little and the redundant arithmetic dominates (measured: 8 virtual
  // workers on fmnist_mlp, 1.60x a plain step with whole vectors vs 1.18x halving), so there the
  // threshold is 0.
  int64_t adasum_whole_vector_bytes = 4 << 20;
  int64_t adasum_whole_vector_bytes_in_process = 0;
};

// "mean", "sum" or "adasum"; InputError naming the choices otherwise.
std::unique_ptr<GradientCombiner> make_gradient_combiner(const std::string& name, const CombinerOptions& options = {});

}  // namespace pacer
