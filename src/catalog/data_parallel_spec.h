#pragma once
// What a user asks of data parallelism, torch-free so that it travels in trial specs, stored
// studies and command lines: the combiner, the virtual workers per process and whether the
// combined quantity is the gradient or each worker's optimizer-step delta. The processes come
// from the launcher, not from here; make_data_parallel_plan (dist/data_parallel_plan.h) joins
// the two.
//
//   pacer::DataParallelSpec dp;
//   dp.combine = "adasum";
//   dp.virtual_workers = 4;
#include <string>

#include "core/error.h"

namespace pacer {

struct DataParallelSpec {
  std::string combine;       // mean, sum or adasum; empty: one worker (or mean across processes)
  int virtual_workers = 1;   // shards of each global batch inside one process
  bool combine_deltas = false;  // adasum only: each worker steps, the parameter deltas are combined

  // True when anything beyond one plain worker was asked for.
  bool requested() const { return !combine.empty() || virtual_workers > 1; }

  // InputError for what no run can do (the combiner's name is checked when it is made).
  void validate() const {
    if (virtual_workers < 1) throw InputError("virtual workers must be at least 1");
    if (combine_deltas && combine != "adasum") throw InputError("--adasum-mode delta needs --combine adasum");
  }
};

}  // namespace pacer
