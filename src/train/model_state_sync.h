#pragma once
// Keeps the model state (the network's floating-point buffers, e.g. batch-norm running
// statistics) consistent across data-parallel processes: each rank updates its statistics on its
// own shard, so before an eval every rank replaces them with the mean over ranks (what the
// reference's DDP workloads do with a cross-replica mean of batch-norm statistics before evals).
// Integer buffers (batch-norm's step counter) are the same everywhere and left alone.
//
//   if (comm) pacer::average_model_state(*comm, *network);   // on every rank, same point
#include "distributed/communicator.h"
#include "models/network.h"

namespace pacer {

// Returns the number of buffer values averaged (0: the model has no floating-point state).
int64_t average_model_state(Communicator& comm, Network& network);

}  // namespace pacer
