#include "distributed/allreduce_combiner.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "core/error.h"
#include "distributed/adasum_combiner.h"
#include "catalog/combiner_names.h"

namespace pacer {

void AllreduceCombiner::combine(Communicator& comm, at::Tensor& flat, const std::vector<int64_t>& /*numels*/) {
  if (comm.size() == 1) return;
  const int64_t per_bucket = std::max<int64_t>(1, options_.bucket_bytes / static_cast<int64_t>(flat.element_size()));
  for (int64_t start = 0; start < flat.numel(); start += per_bucket) {
    at::Tensor bucket = flat.narrow(0, start, std::min(per_bucket, flat.numel() - start));
    comm.allreduce_sum(bucket);
  }
  if (average_) flat.div_(comm.size());
}

std::unique_ptr<GradientCombiner> make_gradient_combiner(const std::string& name, const CombinerOptions& options) {
  if (name == "mean") return std::make_unique<AllreduceCombiner>(true, options);
  if (name == "sum") return std::make_unique<AllreduceCombiner>(false, options);
  check_combiner_name(name);
  return std::make_unique<AdasumCombiner>(options);
}

}  // namespace pacer
