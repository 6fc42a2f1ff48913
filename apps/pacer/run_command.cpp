#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <tuple>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "commands.h"
#include "input_guards.h"
#include "trial_spec_options.h"
#include "interrupt.h"
#include "core/error.h"
#include "dist/c10d_communicator.h"
#include "dist/dist_environment.h"
#include "runtime/torch_runtime.h"
#include "train/trial_runner.h"
#include "train/trial_summary.h"
#include "train/trial_writer.h"
#include "tune/ruleset.h"
#include "workloads/registry.h"

namespace pacer::cli {
namespace {

struct RunArgs {
  std::string workload, algorithm, out, hparams_file, rules;
  std::vector<std::string> assignments;
  uint64_t seed = 0;
  std::shared_ptr<TrialSpecOptions> trial = std::make_shared<TrialSpecOptions>();
  int threads = 0;
  bool self_tuning = false, quiet = false;
  std::string adasum_mode = "gradient", dist_backend = "auto";
  double dist_timeout = 120.0;
  std::string checkpoint_every;  // "500" (steps) or "30s" (seconds)
  bool resume = false, keep_best = false, overwrite = false;
};

// The exit status of a trial: 130 interrupted, 2 when the submission's own code raised, 1 failed.
// Rank 0 prints the summary; the other ranks say how they ended.
int report_trial(const TrialResult& r, const WorkloadSpec& spec, const std::string& out, int rank) {
  const bool interrupted = r.interrupted();
  if (rank != 0) {
    if (r.status == TrialStatus::failed && !interrupted) {
      std::fprintf(stderr, "rank %d: failed (%s): %s\n", rank, to_string(r.stop_reason), r.message.c_str());
      return 1;
    }
    std::printf("rank %d: finished after %lld steps (%s); rank 0 reports the results\n", rank,
                static_cast<long long>(r.steps), to_string(r.stop_reason));
    return interrupted ? 130 : 0;
  }
  std::fputs(trial_summary(r, spec, out).c_str(), stdout);
  if (interrupted) {
    std::fprintf(stderr, "pacer: interrupted after %lld steps; what was measured is in the results\n",
                 static_cast<long long>(r.steps));
    return 130;
  }
  if (r.submission_error) {  // the submission's own code: exit 2, as for any bad input
    std::fprintf(stderr, "pacer: error: %s\n", r.message.c_str());
    return 2;
  }
  return r.status == TrialStatus::failed ? 1 : 0;
}

int run_one_trial(RunArgs& a) {
  // Unknown names or options: InputError listing valid ones.
  auto workload = create_workload(a.workload, parse_workload_options(a.trial->workload_options));
  const std::string algorithm_name = resolve_algorithm(a.algorithm);  // a name, a plugin library, a .py submission
  auto algorithm = create_algorithm(algorithm_name);
  const std::optional<Hyperparameters> hparams = point_from_options(a.self_tuning, a.hparams_file, a.assignments);
  // Processes come from the launcher's environment; virtual workers and the combiner from the
  // options; run_trial assembles the plan from both.
  const DistEnvironment env = DistEnvironment::from_environment();
  set_num_threads(a.threads, env.local_world_size);  // the ranks on this machine share its CPUs
  TrialOptions options;
  a.trial->spec.data_parallel.combine_deltas = a.adasum_mode == "delta";
  // The self-tuning budget multiplier is the rules preset's, as in tune and board.
  const RulesPreset& rules = rules_preset(a.rules.empty() ? default_rules_name() : a.rules);
  if (!a.rules.empty() && !a.self_tuning) {
    std::fprintf(stderr, "pacer: warning: --rules sets only --self-tuning's budget multiplier; without "
                         "--self-tuning it changes nothing\n");
  }
  options.spec = a.trial->resolved(a.self_tuning ? default_budget_multiplier(Ruleset::self, rules) : 1.0);
  if (env.world_size > 1)  // launched as one rank of several
    options.communicator =
        make_process_communicator(env, a.dist_backend, a.dist_timeout, resolve_device(options.spec.device).is_cuda());
  const bool lead = env.rank == 0;
  FolderLock out_lock;  // held to the end: a second command writing --out is refused
  if (lead && !a.out.empty()) {  // before any work: never mix with, or silently replace, earlier results
    if (a.overwrite && a.resume) throw InputError("--overwrite and --resume: give one of them");
    out_lock = prepare_result_folder(a.out, a.resume      ? ExistingResults::resume
                                            : a.overwrite ? ExistingResults::overwrite
                                                          : ExistingResults::refuse);
  }
  Progress progress(a.quiet || !lead ? Progress::Mode::quiet : Progress::auto_detect());
  options.seed = a.seed;
  options.out_dir = a.out;
  std::tie(options.checkpoint_every_steps, options.checkpoint_every_sec) = parse_checkpoint_every(a.checkpoint_every);
  options.resume = a.resume;
  options.keep_best = a.keep_best;
  options.progress = &progress;
  options.make_algorithm = [algorithm_name] { return create_algorithm(algorithm_name); };
  progress.log("pacer run: " + a.workload + " x " + a.algorithm + ", seed " + std::to_string(a.seed) +
               (a.out.empty() ? "" : ", writing to " + a.out));
  // First Ctrl-C (or one forwarded by `pacer launch`): stop after the current step, on every
  // rank together, and write what was measured. Second: the default action.
  options.stop_requested = &install_interrupt_handler();
  const TrialResult r = run_trial(*workload, *algorithm, hparams, options);
  return report_trial(r, workload->spec(), a.out, env.rank);
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-w,--workload", a->workload, "Workload name (see pacer list)")->required();
  app.add_option("-a,--algorithm", a->algorithm, "Training algorithm: a name (see pacer list), a plugin library (./libx.so, ./libx.so:NAME) or a Python submission (a .py file or its folder)")->required();
  app.add_option("--seed", a->seed, "Trial seed (model init, data order, dropout)")->capture_default_str();
  app.add_option("-o,--out", a->out, "Folder for hparams.json, meta_data_0.json, eval_measurements.csv, trial.json");
  app.add_option("--set", a->assignments, "Set a hyperparameter: name=value (repeatable)");
  app.add_option("--hparams", a->hparams_file, "JSON file with hyperparameters (--set overrides it)");
  app.add_flag("--self-tuning", a->self_tuning,
               "Self-tuning ruleset: no hyperparameters passed, budget x the rules' multiplier (see --rules, "
               "--budget-multiplier)");
  app.add_option("--rules", a->rules,
                 "Rules preset of --self-tuning's budget multiplier, as in pacer tune: v0.6 (default, x1.5) or v0.5 (x3)");
  add_trial_spec_options(app, a->trial);
  app.add_option("--threads", a->threads, "Intra-op CPU threads (default: this machine's CPUs / the ranks on it)")->check(non_negative_number());
  app.add_option("--noise-scale", a->trial->spec.noise_scale_shards,
                 "At every eval, estimate the gradient noise scale B_simple from a batch split into K shards")
      ->check(non_negative_number());
  app.add_option("--combine", a->trial->spec.data_parallel.combine,
                 "Combine the workers' gradients: mean, sum or adasum (default mean when run as several processes)");
  app.add_option("--virtual-workers", a->trial->spec.data_parallel.virtual_workers,
                 "Split each global batch into K shards inside this process and combine their gradients")
      ->check(positive_number());
  app.add_option("--adasum-mode", a->adasum_mode,
                 "gradient: combine gradients, then one optimizer step; delta: each worker steps with its own "
                 "optimizer state and the parameter deltas are combined")
      ->check(CLI::IsMember({"gradient", "delta"}))->capture_default_str();
  app.add_option("--dist-backend", a->dist_backend, "Processes: gloo, nccl or auto (nccl on CUDA devices)")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))->capture_default_str();
  app.add_option("--dist-timeout", a->dist_timeout, "Seconds before a rendezvous or collective gives up")
      ->check(positive_number())->capture_default_str();
  app.add_option("--checkpoint-every", a->checkpoint_every,
                 "Write a checkpoint to OUT/checkpoint every N steps or every T seconds (30s, 5m, 1h), off the clock");
  app.add_flag("--overwrite", a->overwrite, "Replace the results of an earlier run in --out (else a non-empty --out is refused)");
  app.add_flag("--resume", a->resume,
               "Continue from OUT/checkpoint when there is one: same metrics as an uninterrupted run");
  app.add_flag("--keep-best", a->keep_best,
               "Also keep OUT/checkpoint_best: the checkpoint at the eval with the best validation metric");
  app.add_flag("-q,--quiet", a->quiet, "No progress output");

  return [a]() -> int { return run_one_trial(*a); };
}

}  // namespace pacer::cli
