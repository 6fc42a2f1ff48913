#pragma once
// When a trial saves its checkpoint and what it does with one: one value from the command line to
// the trial loop (pacer run, pacer tune's workers, their contained trials). Torch-free, header-only.
//
//   pacer::CheckpointPolicy policy;
//   policy.every_steps = 500;                 // --checkpoint-every 500 (or every_sec: 30s)
//   policy.resume = true;                     // continue from OUT/checkpoint when there is one
//   if (policy.periodic()) ...                // racing keeps a checkpointed trial resumable
#include <cstdint>

namespace pacer {

struct CheckpointPolicy {
  // OUT/checkpoint every N steps and/or every T seconds of wall time, off the clock (counted as
  // logging time); 0: never.
  int64_t every_steps = 0;
  double every_sec = 0.0;
  // Continue from OUT/checkpoint when there is one (else start afresh): the metrics continue as if
  // the run had never stopped; preemption_count counts the resumes.
  bool resume = false;
  // Also keep OUT/checkpoint_best: the checkpoint at the eval with the best validation metric so
  // far (the playbook's retrospective checkpoint selection).
  bool keep_best = false;

  bool periodic() const { return every_steps > 0 || every_sec > 0; }
  bool requested() const { return periodic() || resume || keep_best; }
};

}  // namespace pacer
