// pacer tune: tuning studies under the AlgoPerf rulesets, run by one or several workers that
// share a study store; re-running the same command resumes.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "input_guards.h"
#include "trial_spec_options.h"
#include "worker_processes.h"
#include "contained_declarations.h"
#include "core/error.h"
#include "run/tuning_worker.h"
#include "runtime/torch_runtime.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/log_folder.h"
#include "tune/tune_request.h"

namespace pacer::cli {
namespace {

// What the options bind: the library's request, plus what only this process needs.
struct TuneArgs {
  TuneRequest request;
  std::string ruleset = "external", out, checkpoint_every;
  std::shared_ptr<TrialSpecOptions> trial = std::make_shared<TrialSpecOptions>();
  std::shared_ptr<LocalWorkerArgs> workers = local_worker_args("runs/tune.db");
  bool quiet = false, json = false;
};

// The summary, the store's overhead, and the exit status: 130 interrupted, 1 when some trial did
// not finish (a worker failed), else 0.
int finish_tune(const StudyStore& store, const std::vector<StudyRecord>& studies, const LocalWorkersRun& run, bool json) {
  const TuneSummary summary = summarize_tune(store, studies, json);
  std::fputs(summary.text.c_str(), stdout);
  std::fputs(store_overhead_line(run.report).c_str(), json ? stderr : stdout);
  if (run.interrupted || run.report.interrupted) {
    std::fprintf(stderr, "pacer: interrupted; run the same command again to resume\n");
    return 130;
  }
  if (summary.finished) return 0;
  std::fprintf(stderr, "pacer: error: some trials did not finish (a worker failed); run the same command again\n");
  return 1;
}

// What to tune: bound straight to the request.
void add_tune_request_options(CLI::App& app, const std::shared_ptr<TuneArgs>& a) {
  app.add_option("-w,--workload", a->request.workloads, "Workload(s) to tune (repeatable; see pacer list)")->delimiter(',');
  app.add_option("--suite", a->request.suite, "A workload suite instead of -w (small, variants, all, quick; see pacer list)");
  app.add_option_function<uint64_t>(
      "--held-out-seed", [a](const uint64_t& v) { a->request.held_out_seed = v; },
      "Under --rules v0.5 with --suite: seed of the held-out variant draw (default: --seed)");
  app.add_option("-a,--algorithm", a->request.algorithm, "Training algorithm: a name, a plugin library (./libx.so[:NAME]) or a Python submission (a .py file or its folder)")->required();
  app.add_option("--space", a->request.space_file, "Search space JSON in the AlgoPerf format (external tuning), e.g. spaces/nadamw.json");
  app.add_option("--ruleset", a->ruleset, "external (search space, N studies x M trials) or self (no hyperparameters)")
      ->capture_default_str();
  app.add_option("--sampler", a->request.sampler, "halton (the reference quasi-random search), random, grid or list")
      ->capture_default_str();
  app.add_option("--grid-points", a->request.sampler_options.grid_points, "Values per range dimension for --sampler grid")->check(positive_number());
  TuneRequest& r = a->request;
  add_sweep_options(app, {&r.studies, &r.trials, &r.seed, &r.sampler_options.seed, &r.rules}, "workload",
                    "; more later extends the studies");
  app.add_option("--name", a->request.experiment, "Experiment (submission) name; default: the algorithm");
  app.add_option("--scientific", a->request.scientific,
                 "Incremental tuning round: NAME=v1,v2,... (a workload option such as activation, or a hyperparameter); "
                 "the space's other hyperparameters are tuned separately for each value, as experiment NAME@NAME=v")
      ->type_name("NAME=V1,V2");
}

// Where and how this command runs it: the store, the logs, the workers, the output.
void add_tune_process_options(CLI::App& app, const std::shared_ptr<TuneArgs>& a) {
  add_local_worker_options(app, a->workers, "(default: this machine's CPUs / --workers)");
  app.add_option("-o,--out", a->out, "Also write the reference log layout: OUT/study_<k>/<workload>_libtorch/trial_<i>/");
  app.add_option("--checkpoint-every", a->checkpoint_every,
                 "Checkpoint each trial in its --out folder every N steps or T seconds (30s, 5m): a trial re-run "
                 "after its worker died resumes from it");
  app.add_flag("-q,--quiet", a->quiet, "Only the final summary");
  app.add_flag("--json", a->json, "Final summary as JSON on stdout (as `pacer study show --json`); progress on stderr");
}

int run_tune_command(TuneArgs* a, const std::vector<std::string>& base_args) {
  // ---- Inputs, validated before anything is written.
  a->request.ruleset = parse_ruleset(a->ruleset);
  a->request.trial = a->trial->resolved();
  declare_algorithm_files({a->request.algorithm}, contained_describer(a->request.trial.clock));  // never loaded here
  const TunePlan plan = plan_tune(a->request);
  if (plan.space_from_submission) std::fprintf(stderr, "pacer: searching %s (the submission's own search space)\n", plan.space_file.c_str());
  for (const auto& w : plan.warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
  const LocalWorkerArgs& w = *a->workers;
  WorkerOptions options = w.worker_options(nullptr, nullptr);  // --heartbeat against --lease, now
  parse_checkpoint_every(a->checkpoint_every, options.checkpoints);
  if (options.checkpoints.periodic() && a->out.empty()) {
    throw InputError("--checkpoint-every needs --out (the checkpoints live in the trial folders)");
  }
  resolve_device(a->trial->spec.device);  // a bad device is an input error now, not in every trial
  // Before the store: an --out of another experiment, or one that cannot be written, is refused now.
  if (!a->out.empty() && !w.is_worker()) claim_log_folder(a->out, plan.experiment, to_string(plan.ruleset));
  make_store_folder(w.store);

  StudyStore store(w.store);
  const std::vector<StudyRecord> studies = plan_sweeps(store, plan.sweeps);
  if (!w.is_worker() && !a->quiet) {
    std::vector<int64_t> ids;
    for (const auto& s : studies) ids.push_back(s.id);
    std::fprintf(stderr, "%s\n", plan.headline(store.path(), store.progress(ids)).c_str());
    if (!plan.held_out.empty()) std::fprintf(stderr, "%s\n", plan.held_out_line().c_str());
  }
  if (!w.is_worker()) write_held_out_record(plan, a->out);
  options.out_dir = a->out;
  options.experiment_folders = plan.scientific.has_value();  // one sweep per value: OUT/<experiment>/study_<k>/...
  // First Ctrl-C: finish cleanly (the running trial is released as interrupted). Second: default.
  const LocalWorkersRun run = run_local_workers(w, base_args, a->quiet, std::nullopt, options,
                                                [&](const WorkerOptions& o) { return run_tuning_worker(w.store, studies, o); });
  if (w.is_worker()) return run.report.interrupted ? 130 : 0;
  return finish_tune(store, studies, run, a->json);
}

}  // namespace

Action add_tune_command(CLI::App& app, const CommandContext& context) {
  auto a = std::make_shared<TuneArgs>();
  add_tune_request_options(app, a);
  add_trial_spec_options(app, a->trial);
  add_tune_process_options(app, a);
  const std::vector<std::string> base_args = worker_base_args(context.argc, context.argv);
  return [a, base_args]() -> int { return run_tune_command(a.get(), base_args); };
}

}  // namespace pacer::cli
