#include "run/run_request.h"

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "catalog/algorithm_infos.h"
#include "core/child_processes.h"
#include "core/device_choice.h"
#include "core/error.h"
#include "core/file_restrictions.h"
#include "core/folder_lock.h"
#include "distributed/c10d_communicator.h"
#include "catalog/combiner_names.h"
#include "distributed/dist_environment.h"
#include "data/contained_trial_files.h"
#include "runtime/busy_machine.h"
#include "runtime/torch_runtime.h"
#include "score/rules.h"
#include "train/trial_runner.h"
#include "tune/ruleset.h"
#include "workloads/registry.h"

namespace pacer {

RunOutcome run_one_trial(const RunRequest& request) {
  // Processes come from the launcher's environment; virtual workers and the combiner from the
  // spec; run_trial assembles the plan from both.
  const DistEnvironment env = DistEnvironment::from_environment();
  const bool lead = env.rank == 0;
  TrialOptions options;
  options.setup() = request.setup();  // spec, seed, out_dir, checkpoints, stop flag: as asked
  options.spec.budget_multiplier = budget_multiplier_of(request);
  // What the trial needs, decided before anything is written or loaded: unknown names or options
  // are an InputError listing the valid ones.
  auto workload = create_workload(request.workload, request.spec.workload_options);
  if (!request.algorithm.names_a_file()) algorithm_info(request.algorithm.value);  // a file: loaded below
  const FileRestrictions contained_files =
      request.contained_process ? contained_trial_files(request.out_dir, request.spec.data_dir) : FileRestrictions{};
  const LoadChoice load = choose_for_load(request.threads, request.spec.clock, request.spec.device,
                                         request.existing == ExistingResults::resume,
                                         {env.rank, env.local_rank, env.local_world_size});
  check_clock_for_device(request.spec.clock, request.spec.device);  // --device cuda --clock cpu: before any work
  // Before any work: never mix with, or silently replace, earlier results. Held to the end: a
  // second command writing the folder is refused.
  FolderLock out_lock;
  if (lead && !request.out_dir.empty()) out_lock = prepare_result_folder(request.out_dir, request.existing);
  // Before the submission's code first runs (its import): see RunRequest::contained_process. Its
  // data is read first, on one thread: afterwards the dataset's files cannot be read, nothing
  // outside its folder can be written (data/contained_trial_files.h), and only the threads
  // started from then on are restricted.
  if (request.contained_process) {
    set_num_threads(1);
    workload->load({request.spec.data_dir, c10::Device(c10::DeviceType::CPU)});
    refuse_tracing();
    if (request.spec.clock == ClockKind::cpu || load.cpu_clock) refuse_child_processes();
    options.restrictions = restrict_this_process(contained_files);
  }
  const std::string algorithm_name = resolve_algorithm(request.algorithm);  // loads a plugin or a submission
  auto algorithm = create_algorithm(algorithm_name);
  set_num_threads(load.threads, env.local_world_size);  // the ranks on this machine share its CPUs
  if (load.cpu_clock) options.spec.clock = ClockKind::cpu;
  options.local_rank = env.local_rank;
  if (env.world_size > 1) {  // launched as one rank of several
    const bool cuda = resolve_device(options.spec.device, env.local_rank).is_cuda();
    check_backend_for_device(request.dist_backend, cuda, options.spec.data_parallel.combine);
    options.communicator = make_process_communicator(env, request.dist_backend, request.dist_timeout_sec, cuda);
  }
  Progress progress(request.quiet || !lead ? Progress::Mode::quiet : Progress::auto_detect());
  options.checkpoints.resume = request.existing == ExistingResults::resume;
  options.progress = &progress;
  options.make_algorithm = [algorithm_name] { return create_algorithm(algorithm_name); };
  progress.log("pacer run: " + request.workload + " x " + request.algorithm.value + ", seed " +
               std::to_string(request.seed) + (request.out_dir.empty() ? "" : ", writing to " + request.out_dir));
  const std::optional<Hyperparameters> point =
      request.self_tuning ? std::nullopt : std::optional<Hyperparameters>(request.point);
  return RunOutcome{run_trial(*workload, *algorithm, point, options), workload->spec(), env.rank};
}

}  // namespace pacer
