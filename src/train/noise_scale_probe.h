#pragma once
// The gradient-noise-scale probe of `--noise-scale K`: at every eval (off the clock) it draws a
// batch from its own stream (the training data order is untouched), measures the gradient norms
// on the batch and its K shards, and adds the smoothed B_simple as the metric train/noise_scale.
//
//   pacer::NoiseScaleProbe probe(workload, batch_size, shards, seed);
//   probe.measure(workload, *network, record.metrics);
#include <cstdint>
#include <memory>

#include "data/batch_stream.h"
#include "models/network.h"
#include "train/noise_scale.h"
#include "workloads/workload.h"

namespace pacer {

class NoiseScaleProbe {
 public:
  // InputError unless the batch splits into `shards` (>= 2) equal shards.
  NoiseScaleProbe(const Workload& workload, int64_t batch_size, int shards, uint64_t seed);
  void measure(const Workload& workload, Network& network, Metrics& metrics);

 private:
  int shards_;
  std::unique_ptr<BatchStream> stream_;
  NoiseScaleEstimator estimator_;
};

}  // namespace pacer
