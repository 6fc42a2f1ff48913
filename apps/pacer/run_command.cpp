// pacer run: one trial of a workload and an algorithm (run/run_request.h), its summary and its
// exit status; under `pacer launch`, one rank of several.
#include <cstdio>
#include <memory>
#include <tuple>

#include "commands.h"
#include "input_guards.h"
#include "contained_run.h"
#include "interrupt.h"
#include "trial_spec_options.h"
#include "core/error.h"
#include "train/trial_summary.h"
#include "run/run_request.h"

namespace pacer::cli {
namespace {

// What the options bind: the library's request, plus what is parsed or checked here first.
struct RunArgs {
  RunRequest request;
  CLI::Option* clock_option = nullptr;  // given or not: a busy machine may choose the cpu clock
  std::vector<std::string> argv;        // this command line: an untrusted algorithm runs in a copy of it
  std::string hparams_file, adasum_mode = "gradient";
  std::vector<std::string> assignments;
  std::shared_ptr<TrialSpecOptions> trial = std::make_shared<TrialSpecOptions>();
  std::string checkpoint_every;  // "500" (steps) or "30s" (seconds)
  bool resume = false, overwrite = false;
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

int run_command(RunArgs& a) {
  RunRequest& r = a.request;
  if (!r.rules.empty() && !r.self_tuning) {
    std::fprintf(stderr, "pacer: warning: --rules sets only --self-tuning's budget multiplier; without "
                         "--self-tuning it changes nothing\n");
  }
  r.point = point_from_options(r.self_tuning, a.hparams_file, a.assignments);
  a.trial->spec.data_parallel.combine_deltas = a.adasum_mode == "delta";
  r.trial = a.trial->resolved();
  if (a.overwrite && a.resume && !r.out.empty()) throw InputError("--overwrite and --resume: give one of them");
  r.existing = a.resume ? ExistingResults::resume : a.overwrite ? ExistingResults::overwrite : ExistingResults::refuse;
  std::tie(r.checkpoint_every_steps, r.checkpoint_every_sec) = parse_checkpoint_every(a.checkpoint_every);
  // First Ctrl-C (or one forwarded by `pacer launch`): stop after the current step, on every
  // rank together, and write what was measured. Second: the default action.
  r.stop_requested = &install_interrupt_handler();
  r.clock_from_load = a.clock_option && a.clock_option->count() == 0;
  if (auto code = run_in_contained_copy(a.argv, r.algorithm, r.out, *r.stop_requested)) return *code;
  r.contained_process = in_contained_copy();
  const RunOutcome run = run_one_trial(r);
  return contained_copy_finished(report_trial(run.result, run.workload, r.out, run.rank));
}

}  // namespace

Action add_run_command(CLI::App& app, int argc, char** argv) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("-w,--workload", a->request.workload, "Workload name (see pacer list)")->required();
  app.add_option("-a,--algorithm", a->request.algorithm, "Training algorithm: a name (see pacer list), a plugin library (./libx.so, ./libx.so:NAME) or a Python submission (a .py file or its folder)")->required();
  app.add_option("--seed", a->request.seed, "Trial seed (model init, data order, dropout)")->capture_default_str();
  app.add_option("-o,--out", a->request.out, "Folder for hparams.json, meta_data_0.json, eval_measurements.csv, trial.json");
  app.add_option("--set", a->assignments, "Set a hyperparameter: name=value (repeatable)");
  app.add_option("--hparams", a->hparams_file, "JSON file with hyperparameters (--set overrides it)");
  app.add_flag("--self-tuning", a->request.self_tuning,
               "Self-tuning ruleset: no hyperparameters passed, budget x the rules' multiplier (see --rules, "
               "--budget-multiplier)");
  app.add_option("--rules", a->request.rules,
                 "Rules preset of --self-tuning's budget multiplier, as in pacer tune: v0.6 (default, x1.5) or v0.5 (x3)");
  add_trial_spec_options(app, a->trial);
  app.add_option("--threads", a->request.threads, "Intra-op CPU threads (default: this machine's CPUs / the ranks on it, fewer on a busy machine)")->check(non_negative_number());
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
  app.add_flag("--keep-best", a->request.keep_best,
               "Also keep OUT/checkpoint_best: the checkpoint at the eval with the best validation metric");
  app.add_flag("-q,--quiet", a->request.quiet, "No progress output");
  a->clock_option = app.get_option_no_throw("--clock");
  a->argv.assign(argv, argv + argc);

  return [a]() -> int { return run_command(*a); };
}

}  // namespace pacer::cli
