#include "run/run_request.h"

#include "run/contained_trial_files.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/child_processes.h"
#include "core/device_choice.h"
#include "core/error.h"
#include "core/machine_load.h"
#include "core/folder_lock.h"
#include "distributed/c10d_communicator.h"
#include "catalog/combiner_names.h"
#include "distributed/dist_environment.h"
#include "run/contained_trial_files.h"
#include "runtime/torch_runtime.h"
#include "score/rules.h"
#include "train/trial_runner.h"
#include "tune/ruleset.h"
#include "workloads/registry.h"

namespace pacer {

namespace {

// What a busy machine changes (RunRequest::threads_from_load): the threads (0 leaves the choice to
// set_num_threads: OMP_NUM_THREADS or the share) and whether the clock becomes cpu.
struct LoadChoice {
  int threads = 0;
  bool cpu_clock = false;
};

LoadChoice choose_for_load(const RunRequest& request, const DistEnvironment& env) {
  LoadChoice choice{request.threads, false};
  if (request.threads > 0 || !request.threads_from_load || std::getenv("OMP_NUM_THREADS") ||
      std::getenv("PACER_IGNORE_LOAD") || request.existing == ExistingResults::resume) {
    return choice;  // a resumed run keeps what it would have had (its numerics, its clock)
  }
  const int cpus = available_cpus();
  const int share = std::max(1, cpus / std::max(1, env.local_world_size));
  const int busy = other_running_tasks();
  const int threads = threads_beside(busy, cpus, share);
  if (threads >= share) return choice;
  choice.threads = threads;
  // Not on a GPU: the cpu clock would measure the host's launches there (core/device_choice.h).
  choice.cpu_clock = request.clock_from_load && request.spec.clock == ClockKind::wall &&
                     !resolve_device(request.spec.device, env.local_rank).is_cuda();
  if (env.rank == 0) {
    std::fprintf(stderr,
                 "pacer: warning: the machine is busy (%d other running task%s on %d CPUs): training with %d "
                 "thread%s instead of %d, since a thread that waits for its partner on a shared core stalls "
                 "every step%s; --threads N%s chooses\n",
                 busy, busy == 1 ? "" : "s", cpus, threads, threads == 1 ? "" : "s", share,
                 choice.cpu_clock ? ", and timing by this process's CPU time (--clock cpu): its wall-clock time "
                                    "would say how busy the machine was"
                                  : "",
                 request.clock_from_load ? " and --clock wall" : "");
  }
  return choice;
}

}  // namespace

RunOutcome run_one_trial(const RunRequest& request) {
  // Unknown names or options: InputError listing valid ones.
  auto workload = create_workload(request.workload, request.spec.workload_options);
  // Processes come from the launcher's environment; virtual workers and the combiner from the
  // spec; run_trial assembles the plan from both.
  const DistEnvironment env = DistEnvironment::from_environment();
  check_clock_for_device(request.spec.clock, request.spec.device);  // --device cuda --clock cpu: before any work
  const LoadChoice load = choose_for_load(request, env);
  const bool lead = env.rank == 0;
  FolderLock out_lock;  // held to the end: a second command writing the folder is refused
  std::string restrictions;
  // Before the submission's code first runs (its import): see RunRequest::contained_process. Its
  // folder is made and its data read first, on one thread: afterwards the dataset's files cannot
  // be read, nothing outside the folder can be written (run/contained_trial_files.h), and only the
  // threads started from then on are restricted.
  if (request.contained_process) {
    if (lead && !request.out_dir.empty()) out_lock = prepare_result_folder(request.out_dir, request.existing);
    set_num_threads(1);
    workload->load({request.spec.data_dir, c10::Device(c10::DeviceType::CPU)});
    refuse_tracing();
    if (request.spec.clock == ClockKind::cpu || load.cpu_clock) refuse_child_processes();
    restrictions = restrict_contained_trial(request.out_dir, request.spec.data_dir);
  }
  const std::string algorithm_name = resolve_algorithm(request.algorithm);  // loads a plugin or a submission
  auto algorithm = create_algorithm(algorithm_name);
  set_num_threads(load.threads, env.local_world_size);  // the ranks on this machine share its CPUs
  TrialOptions options;
  options.setup() = request.setup();  // spec, seed, out_dir, checkpoints, stop flag: as asked
  if (load.cpu_clock) options.spec.clock = ClockKind::cpu;
  options.spec.budget_multiplier = budget_multiplier_of(request);
  options.local_rank = env.local_rank;
  if (env.world_size > 1) {  // launched as one rank of several
    const bool cuda = resolve_device(options.spec.device, env.local_rank).is_cuda();
    check_backend_for_device(request.dist_backend, cuda, options.spec.data_parallel.combine);
    options.communicator = make_process_communicator(env, request.dist_backend, request.dist_timeout_sec, cuda);
  }
  if (lead && !request.out_dir.empty() && !request.contained_process)  // before any work: never mix with, or silently replace, earlier results
    out_lock = prepare_result_folder(request.out_dir, request.existing);
  Progress progress(request.quiet || !lead ? Progress::Mode::quiet : Progress::auto_detect());
  options.checkpoints.resume = request.existing == ExistingResults::resume;
  options.restrictions = restrictions;
  options.progress = &progress;
  options.make_algorithm = [algorithm_name] { return create_algorithm(algorithm_name); };
  progress.log("pacer run: " + request.workload + " x " + request.algorithm + ", seed " + std::to_string(request.seed) +
               (request.out_dir.empty() ? "" : ", writing to " + request.out_dir));
  const std::optional<Hyperparameters> point =
      request.self_tuning ? std::nullopt : std::optional<Hyperparameters>(request.point);
  RunOutcome outcome{run_trial(*workload, *algorithm, point, options), workload->spec(), env.rank};
  return outcome;
}

}  // namespace pacer
