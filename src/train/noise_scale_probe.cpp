#include "train/noise_scale_probe.h"

#include <cmath>

#include "core/error.h"
#include "train/gradient_norms.h"

namespace pacer {

NoiseScaleProbe::NoiseScaleProbe(const Workload& workload, int64_t batch_size, int shards, uint64_t seed)
    : shards_(shards) {
  if (shards < 2 || batch_size % shards != 0) {
    throw InputError("--noise-scale: the batch size " + std::to_string(batch_size) + " must split into " +
                     std::to_string(shards) + " (>= 2) equal shards");
  }
  stream_ = std::make_unique<BatchStream>(workload.dataset(EvalSplit::train),
                                          BatchStreamOptions{batch_size, seed, 0, 1, 0});
}

void NoiseScaleProbe::measure(const Workload& workload, Network& network, Metrics& metrics) {
  const Batch probe = stream_->next();
  estimator_.add(measure_gradient_norms(workload, network, probe, shards_));
  metrics["train/noise_scale"] = estimator_.b_simple().value_or(NAN);
}

}  // namespace pacer
