// pacer run's options and their checks, in both programs: the light pacer hands the trial to
// pacer-train (run_training.cpp), or waits for its contained copy (contained_run.h).
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "contained_run.h"
#include "input_guards.h"
#include "interrupt.h"
#include "run_command.h"
#include "training_layer.h"
#include "training_program.h"
#include "catalog/algorithm_reference.h"
#include "catalog/training_goal.h"
#include "catalog/workload_specs.h"
#include "core/error.h"

namespace pacer::cli {

void prepare_run(RunArgs& a, bool warn) {
  RunRequest& r = a.request;
  if (warn && !r.rules.empty() && !r.self_tuning) {
    std::fprintf(stderr, "pacer: warning: --rules sets only --self-tuning's budget multiplier; without "
                         "--self-tuning it changes nothing\n");
  }
  check_self_tuning_takes_no_point(r.self_tuning, a.hparams_file, a.assignments);
  parse_checkpoint_every(a.checkpoint_every, r.checkpoints);
  a.trial->spec.data_parallel.combine_deltas = a.adasum_mode == "delta";
  // A goal of one's own ends the trial instead of the workload's targets (which a goal beyond them
  // would otherwise cut short); time to target is still measured and reported.
  const bool own_goal = a.goal || !a.goal_metric.empty();
  if (own_goal) a.trial->ignore_targets = true;
  r.spec = a.trial->resolved();
  if (own_goal) {
    r.spec.goal = resolve_training_goal(workload_spec(r.workload), a.goal_metric, a.goal);
    check_goal_is_evaluated(*r.spec.goal, r.spec.eval_splits);
  }
  if (a.overwrite && a.resume && !r.out_dir.empty()) throw InputError("--overwrite and --resume: give one of them");
  r.existing = a.resume ? ExistingResults::resume : a.overwrite ? ExistingResults::overwrite : ExistingResults::refuse;
  TrialSpec budgeted = r.spec;
  budgeted.budget_multiplier = budget_multiplier_of(r);
  a.copy_limit_sec = a.trial_limit > 0 ? a.trial_limit : budgeted.process_limit_sec(workload_spec(r.workload));
  // Last, since it reads files: the point (none under --self-tuning, checked above).
  std::vector<std::string> warnings;
  if (!r.self_tuning) r.point = Hyperparameters::from_file_and_assignments(a.hparams_file, a.assignments, &warnings);
  if (warn) print_point_warnings(warnings);
}

namespace {

// The light pacer's: the arguments checked here (bad input ends here, exit 2, without LibTorch);
// the contained copy of an untrusted algorithm's trial started as pacer-train and waited for;
// anything else handed to pacer-train.
Outcome check_and_hand_on(RunArgs& a) {
  prepare_run(a, /*warn=*/false);
  const std::string program = training_program_path();
  if (in_contained_copy() || !a.request.algorithm.untrusted() || ::access(program.c_str(), X_OK) != 0)
    return Outcome::hand_on("");  // the command trains: exec_training_program says why it cannot start one
  if (auto code = run_in_contained_copy(a.argv, a.request.algorithm, a.request.out_dir, a.copy_limit_sec,
                                        install_interrupt_handler(), program))
    return *code;
  return Outcome::hand_on("");
}

}  // namespace

Action add_run_command(CLI::App& app, const CommandContext& context) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-w,--workload", a->request.workload, "Workload name (see pacer list)")->required();
  app.add_option_function<std::string>(
         "-a,--algorithm", [a](const std::string& value) { a->request.algorithm = algorithm_reference(value); },
         "Training algorithm: a name (see pacer list), a plugin library (./libx.so, ./libx.so:NAME) or a Python "
         "submission (a .py file or its folder)")
      ->required();
  app.add_option("--seed", a->request.seed, "Trial seed (model init, data order, dropout)")->capture_default_str();
  app.add_option("-o,--out", a->request.out_dir, "Folder for hparams.json, meta_data_0.json, eval_measurements.csv, trial.json");
  app.add_option("--set", a->assignments, "Set a hyperparameter: name=value (repeatable)");
  app.add_option("--hparams", a->hparams_file, "JSON file with hyperparameters (--set overrides it)");
  app.add_flag("--self-tuning", a->request.self_tuning,
               "Self-tuning ruleset: no hyperparameters passed, budget x the rules' multiplier (see --rules, "
               "--budget-multiplier)");
  app.add_option("--rules", a->request.rules,
                 "Rules preset of --self-tuning's budget multiplier, as in pacer tune: v0.6 (default, x1.5) or v0.5 (x3)");
  add_trial_spec_options(app, a->trial);
  app.add_option("--goal", a->goal,
                 "Stop at the first eval strictly better than this value of --metric, instead of at the workload's "
                 "targets (which are still measured)");
  app.add_option("--metric", a->goal_metric,
                 "The metric of --goal: SPLIT/NAME or NAME for validation/NAME (default: the workload's target metric)");
  app.add_option("--threads", a->request.threads.count, "Intra-op CPU threads (default: this machine's CPUs / the ranks on it, fewer on a busy machine)")->check(non_negative_number());
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
  app.add_option("--dist-backend", a->request.dist_backend, "Processes: gloo, nccl or auto (nccl on CUDA devices)")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))->capture_default_str();
  app.add_option("--dist-timeout", a->request.dist_timeout_sec, "Seconds before a rendezvous or collective gives up")
      ->check(positive_number())->capture_default_str();
  app.add_option("--checkpoint-every", a->checkpoint_every,
                 "Write a checkpoint to OUT/checkpoint every N steps or every T seconds (30s, 5m, 1h), off the clock");
  app.add_flag("--overwrite", a->overwrite, "Replace the results of an earlier run in --out (else a non-empty --out is refused)");
  app.add_flag("--resume", a->resume,
               "Continue from OUT/checkpoint when there is one: same metrics as an uninterrupted run");
  app.add_flag("--keep-best", a->request.checkpoints.keep_best,
               "Also keep OUT/checkpoint_best: the checkpoint at the eval with the best validation metric");
  app.add_flag("-q,--quiet", a->request.quiet, "No progress output");
  app.add_option("--trial-limit", a->trial_limit,
                 "Wall-clock seconds a Python submission's or plugin's trial may run in its own process before it "
                 "is killed and fails (default: 4 x its budget + 120 s)")->check(positive_number());
  a->clock_option = app.get_option_no_throw("--clock");
  a->argv.assign(context.argv, context.argv + context.argc);

  if (!context.training) return [a] { return check_and_hand_on(*a); };
  return [a, training = context.training]() -> Outcome { return training->run(*a); };
}

}  // namespace pacer::cli
