#pragma once
// A tuning worker: claims trials of the given studies from the store one at a time, runs each
// with the trial runner, streams its evals into the store, and records the outcome. It holds a
// lease on the running trial and renews it from a heartbeat thread; it stops when every trial of
// the studies is finished (waiting for trials other workers hold, and taking over those whose
// lease expires), or when asked to stop (Ctrl-C: the running trial is released as interrupted).
// Several workers, in one or several processes, can share the same studies.
//
//   pacer::WorkerOptions options;
//   options.out_dir = "runs/tune";  // reference layout: study_<k>/<workload>_libtorch/trial_<i>/
//   pacer::WorkerReport report = pacer::run_tuning_worker("runs/tune.db", studies, options);
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "store/study_store.h"
#include "tune/worker_options.h"

namespace pacer {

WorkerReport run_tuning_worker(const std::string& store_path, const std::vector<StudyRecord>& studies,
                               const WorkerOptions& options);

// A contained trial's process (`pacer contained-trial`): runs the trial STUDY_ID/TRIAL_ID that a
// worker claimed under OWNER, as that worker would in process, but its records go to the worker
// over CHANNEL_FD (run/trial_channel.h): this process reads the store once, before the untrusted
// code runs, and never writes it. `load_algorithm` imports that code (a submission, a plugin); it
// is called once the process's restrictions are in place (no tracing; on the cpu clock no child
// processes; files: core/file_restrictions.h), so that nothing the code does at import escapes
// them. Returns the exit status: 0 recorded, 130 interrupted (released), 3 the lease was lost.
int run_contained_trial(const std::string& store_path, int64_t study_id, int64_t trial_id, const std::string& owner,
                        int channel_fd, const WorkerOptions& options, const std::function<void()>& load_algorithm = {});

}  // namespace pacer
