// pacer contained-trial (hidden): the process in which a tuning worker runs one trial of an
// untrusted algorithm, a Python submission or a plugin (tune/contained_trial.h). Its command line
// is written by trial_process_options(); nobody types it.
#include <memory>

#include "commands.h"
#include "interrupt.h"
#include "worker_processes.h"
#include "algorithms/plugin_loader.h"
#include "core/progress.h"
#include "runtime/torch_runtime.h"
#include "tune/contained_trial.h"
#include "run/tuning_worker.h"

namespace pacer::cli {
namespace {

struct ContainedTrialArgs {
  std::string store, owner, python_file, plugin_file;
  int channel_fd = -1;
  int64_t study = 0, trial = 0;
  int threads = 1;
  bool quiet = false;
  WorkerOptions options;
};

}  // namespace

Action add_contained_trial_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<ContainedTrialArgs>();
  WorkerOptions& o = a->options;
  app.add_option("--store", a->store)->required();
  app.add_option("--study", a->study)->required();
  app.add_option("--trial", a->trial)->required();
  app.add_option("--owner", a->owner)->required();
  app.add_option("--threads", a->threads);
  app.add_option("--lease", o.lease_sec);
  app.add_option("--heartbeat", o.heartbeat_sec);
  app.add_option("--label", o.label);
  app.add_option("--out-dir", o.out_dir);
  app.add_flag("--experiment-folders", o.experiment_folders);
  app.add_option("--checkpoint-every-steps", o.checkpoints.every_steps);
  app.add_option("--checkpoint-every-sec", o.checkpoints.every_sec);
  app.add_flag("--race", o.race);
  app.add_flag("--race-cutoff", o.race_cutoff);
  app.add_flag("--quiet", a->quiet);
  app.add_option("--python-file", a->python_file);
  app.add_option("--plugin-file", a->plugin_file);
  app.add_option("--channel-fd", a->channel_fd)->required();
  return [a]() -> int {
    const std::atomic<bool>& stop = install_interrupt_handler();
    stop_with_supervisor();
    set_num_threads(a->threads);
    Progress progress(a->quiet ? Progress::Mode::quiet : Progress::Mode::lines);
    WorkerOptions options = a->options;
    options.stop_requested = &stop;
    options.progress = &progress;
    // Registered here too, once the process's restrictions are in place (run_contained_trial).
    return run_contained_trial(a->store, a->study, a->trial, a->owner, a->channel_fd, options, [&a] {
      if (!a->python_file.empty()) resolve_algorithm(a->python_file);
      if (!a->plugin_file.empty()) load_algorithm_plugin(a->plugin_file);
    });
  };
}

}  // namespace pacer::cli
