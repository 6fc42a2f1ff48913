#pragma once
// What a busy machine changes for a trial that left its threads to Pacer (pacer run's
// RunRequest::threads, count 0): fewer intra-op threads than its share of the CPUs, since a
// thread that waits for its partner on a shared core stalls every step, and, where the clock was
// left to Pacer as well, the cpu clock instead of the wall clock (a wall-clock time there says
// how busy the machine was). Rank 0 says both on stderr.
//
//   pacer::ThreadsAsked asked;              // count 0: Pacer's choice
//   asked.clock_when_busy = true;           // the clock was not chosen either
//   const pacer::LoadChoice load = pacer::choose_for_load(asked, pacer::ClockKind::wall, "cpu", false, {});
//   pacer::set_num_threads(load.threads, 1);  // 0 leaves it to OMP_NUM_THREADS or the share
#include <string>

#include "core/clock.h"

namespace pacer {

// What a trial asks of its intra-op threads.
struct ThreadsAsked {
  int count = 0;                 // > 0: chosen, nothing changes; 0: this machine's CPUs / the ranks on it
  bool fewer_when_busy = true;   // with count 0, the cores other running tasks leave, when fewer
  bool clock_when_busy = false;  // the clock was not chosen: a busy machine makes it cpu (not on a GPU)
};

// This process among the ranks of its job (distributed/dist_environment.h).
struct RanksHere {
  int rank = 0;
  int local_rank = 0;
  int local_world_size = 1;  // the ranks that share this machine's CPUs
};

struct LoadChoice {
  int threads = 0;  // 0: leave the choice to set_num_threads (OMP_NUM_THREADS or the share)
  bool cpu_clock = false;
};

// For a trial on `clock` and `device` (a name, as --device). Nothing changes when `resuming` (a
// resumed run keeps what it would have had: its numerics, its clock), under OMP_NUM_THREADS or
// PACER_IGNORE_LOAD, or, for the clock, on a GPU (the cpu clock would measure the host's
// launches there: core/device_choice.h).
LoadChoice choose_for_load(const ThreadsAsked& asked, ClockKind clock, const std::string& device, bool resuming,
                           const RanksHere& ranks);

}  // namespace pacer
