#pragma once
// Squared gradient norms of the mean loss on a batch and on its equal shards, the input of the
// gradient noise scale (train/noise_scale.h). The batch gradient is the mean of the shard
// gradients, so one backward pass per shard gives both. Leaves gradients in the parameters'
// .grad() (training algorithms zero them before their own backward pass).
//
//   pacer::GradientNormSample s = pacer::measure_gradient_norms(workload, *network, batch, 8);
#include "data/batch.h"
#include "models/network.h"
#include "train/noise_scale.h"
#include "workloads/workload.h"

namespace pacer {

// InputError when the batch does not split into `shards` >= 2 equal, non-empty shards.
GradientNormSample measure_gradient_norms(const Workload& workload, Network& network, const Batch& batch, int shards);

}  // namespace pacer
