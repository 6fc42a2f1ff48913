#include "runtime/busy_machine.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/machine_load.h"
#include "runtime/torch_runtime.h"

namespace pacer {

LoadChoice choose_for_load(const ThreadsAsked& asked, ClockKind clock, const std::string& device, bool resuming,
                           const RanksHere& ranks) {
  LoadChoice choice{asked.count, false};
  if (asked.count > 0 || !asked.fewer_when_busy || std::getenv("OMP_NUM_THREADS") || std::getenv("PACER_IGNORE_LOAD") ||
      resuming) {
    return choice;
  }
  const int cpus = available_cpus();
  const int share = std::max(1, cpus / std::max(1, ranks.local_world_size));
  const int busy = other_running_tasks();
  const int threads = threads_beside(busy, cpus, share);
  if (threads >= share) return choice;
  choice.threads = threads;
  choice.cpu_clock =
      asked.clock_when_busy && clock == ClockKind::wall && !resolve_device(device, ranks.local_rank).is_cuda();
  if (ranks.rank == 0) {
    std::fprintf(stderr,
                 "pacer: warning: the machine is busy (%d other running task%s on %d CPUs): training with %d "
                 "thread%s instead of %d, since a thread that waits for its partner on a shared core stalls "
                 "every step%s; --threads N%s chooses\n",
                 busy, busy == 1 ? "" : "s", cpus, threads, threads == 1 ? "" : "s", share,
                 choice.cpu_clock ? ", and timing by this process's CPU time (--clock cpu): its wall-clock time "
                                    "would say how busy the machine was"
                                  : "",
                 asked.clock_when_busy ? " and --clock wall" : "");
  }
  return choice;
}

}  // namespace pacer
