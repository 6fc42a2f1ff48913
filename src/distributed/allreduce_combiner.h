#pragma once
// Mean or sum of the workers' buffers: the flat buffer is cut into buckets of about
// `bucket_bytes` and each bucket is one allreduce (a handful of calls, not one per tensor).
//
//   pacer::AllreduceCombiner mean(/*average=*/true, {});
//   mean.combine(comm, flat_grads, numels);
#include "distributed/gradient_combiner.h"

namespace pacer {

class AllreduceCombiner : public GradientCombiner {
 public:
  AllreduceCombiner(bool average, CombinerOptions options) : average_(average), options_(options) {}
  std::string name() const override { return average_ ? "mean" : "sum"; }
  void combine(Communicator& comm, at::Tensor& flat, const std::vector<int64_t>& numels) override;

 private:
  bool average_;
  CombinerOptions options_;
};

}  // namespace pacer
