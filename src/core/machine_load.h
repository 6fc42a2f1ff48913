#pragma once
// How busy this machine is right now: what `pacer run` looks at before it chooses its threads. On
// a core shared with a busy process, an intra-op thread that waits for its partner at every
// parallel region stalls each step by the scheduler's time slice: two threads beside two busy
// processes on two cores made 44-326 steps of fmnist_mlp in 7 s where one thread made 837
// (docs/benchmarks.md, "A busy machine"). Linux only (/proc/loadavg); elsewhere nothing is busy.
//
//   int busy = pacer::other_running_tasks();            // 2 beside two busy loops
//   int threads = pacer::threads_beside(busy, 2, 2);    // 1
#include <string>

namespace pacer {

// The other runnable tasks: the fewest /proc/loadavg reports running over `samples` looks
// `interval_ms` apart (a task that ran only for a moment is not busy), less the one reading it.
// `loadavg` names the file (tests); 0 when it cannot be read.
int other_running_tasks(int samples = 5, int interval_ms = 4, const std::string& loadavg = "/proc/loadavg");

// The threads a run that would take `share` of `cpus` gets beside `busy` other running tasks:
// the cores they leave free, at least 1, at most `share`.
int threads_beside(int busy, int cpus, int share);

}  // namespace pacer
