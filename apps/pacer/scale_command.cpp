// pacer scale: a batch-size scaling study. For each algorithm and batch size, a quasi-random
// tuning study with a fixed step budget goes to the study store; steps-to-result per batch size,
// regimes, the critical-batch-size fit and the gradient noise scale come back from the store.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "input_guards.h"
#include "algorithms/plugin_loader.h"
#include "core/output_folder.h"
#include "core/progress.h"
#include "run/tuning_worker.h"
#include "runtime/torch_runtime.h"
#include "scale/scale_request.h"
#include "scale/scaling_study.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "workloads/training_set_size.h"

namespace pacer::cli {
namespace {

// What the options bind: the library's request, plus what only this process needs.
struct ScaleArgs {
  ScaleRequest request;
  std::string store = "runs/scale.db", out;
  int threads = 0;
  bool quiet = false, json = false;
};

int run_scale_command(const ScaleArgs& a) {
  load_algorithm_files(a.request.algorithms);  // plugins, Python submissions
  const ScalePlan plan = plan_scale(a.request, training_set_size);  // InputError before anything is written
  for (const auto& w : plan.warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
  if (!a.out.empty()) prepare_output_folder(a.out, "--out");  // unwritable: said before any study
  resolve_device(a.request.device);
  make_store_folder(a.store);
  StudyStore store(a.store);
  const std::vector<StudyRecord> studies = plan_sweeps(store, plan.sweeps);
  const int threads = set_num_threads(a.threads);

  Progress progress(a.quiet ? Progress::Mode::quiet : Progress::auto_detect());
  progress.log(plan.headline(a.request));
  WorkerOptions options;
  options.out_dir = a.out.empty() ? "" : a.out + "/logs";
  options.experiment_folders = true;
  options.progress = &progress;
  options.trial_process = "/proc/self/exe";  // a Python submission's or plugin's trials: contained
  options.trial_process_threads = threads;
  const WorkerReport worker = run_tuning_worker(a.store, studies, options);

  const ScalingReport report = read_scaling_study(store, studies, plan.goal, {a.request.perfect, a.request.maximal});
  std::fputs(a.json ? scaling_json_text(report).c_str() : scaling_table_text(report).c_str(), stdout);
  if (!a.out.empty()) {
    write_scaling_outputs(report, a.out);
    std::fprintf(a.json ? stderr : stdout, "\nwrote %s/{scaling.json, scaling.csv, steps_vs_batch_size.svg, report.html}\n",
                 a.out.c_str());
  }
  return worker.interrupted ? 130 : 0;
}

}  // namespace

Action add_scale_command(CLI::App& app) {
  auto a = std::make_shared<ScaleArgs>();
  app.add_option("-w,--workload", a->request.workload, "Workload")->required();
  app.add_option("-a,--algorithm", a->request.algorithms, "Algorithm(s), comma-separated, one curve each")->required()->delimiter(',');
  app.add_option("--batch-sizes", a->request.batch_sizes, "LO:HI (powers of two) or a comma-separated list")->required();
  app.add_option("--trials", a->request.trials, "Quasi-random trials per batch size (more later extends the studies)")
      ->check(positive_number())->capture_default_str();
  app.add_option("--space", a->request.spaces, "Search space per algorithm, in -a order (default: spaces/<algorithm>.json)");
  app.add_option("--goal", a->request.goal, "Goal on --metric (default: the workload's validation target)");
  app.add_option("--metric", a->request.metric, "Eval metric of the goal (default: validation/<target metric>)");
  app.add_option("--max-steps", a->request.max_steps, "Step budget per trial, at every batch size")->check(positive_number());
  app.add_option("--epochs", a->request.epochs, "Step budget from this many epochs at the smallest batch size")
      ->check(positive_number());
  app.add_option("--evals", a->request.evals, "Evaluations per trial (spaced as --eval-spacing says)")->check(positive_number())
      ->capture_default_str();
  app.add_option("--combine", a->request.combines,
                 "Data-parallel combiners to compare, e.g. mean,adasum (one series per algorithm and combiner)")
      ->delimiter(',');
  app.add_option("--virtual-workers", a->request.virtual_workers, "Virtual workers per step for --combine")
      ->check(positive_number())->capture_default_str();
  app.add_option("--adasum-mode", a->request.adasum_mode,
                 "Adasum series: gradient, or delta (local optimizer steps, deltas combined; series +adasum-delta)")
      ->check(CLI::IsMember({"gradient", "delta"}))->capture_default_str();
  app.add_option("--eval-spacing", a->request.eval_spacing,
                 "linear: every budget/evals steps; log: geometrically spaced (the same relative resolution of "
                 "steps-to-result at every batch size)")
      ->check(CLI::IsMember({"linear", "log"}))->capture_default_str();
  app.add_flag("--eval-all-splits", a->request.all_splits,
               "Evaluate train, validation and test at every eval (default: only the goal's split)");
  app.add_option("--noise-scale", a->request.noise_scale, "Log the gradient noise scale at every eval, from this many shards")
      ->check(non_negative_number());
  app.add_option("--seed", a->request.seed, "Base seed of the trials")->capture_default_str();
  app.add_option("--sampler-seed", a->request.sampler_seed, "Seed of the recorded shuffle of each study's points");
  app.add_option("--name", a->request.name_prefix, "Prefix of the experiment names (default: none; experiment = algorithm)");
  app.add_option("--store", a->store, "Study store (SQLite file or postgresql:// URI)")->capture_default_str();
  app.add_option("-o,--out", a->out, "Folder for scaling.json/.csv, the plot, report.html and the trial logs");
  app.add_option("--perfect-threshold", a->request.perfect, "Efficiency at or above which scaling counts as perfect")
      ->capture_default_str();
  app.add_option("--maximal-threshold", a->request.maximal, "Efficiency below which data parallelism is maximal")
      ->capture_default_str();
  app.add_option("--device", a->request.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--data-dir", a->request.data_dir, "Fashion-MNIST folder");
  app.add_option("--threads", a->threads, "Intra-op CPU threads")->check(non_negative_number());
  app.add_flag("-q,--quiet", a->quiet, "Only the table");
  app.add_flag("--json", a->json, "The result as JSON on stdout (scaling.json's content) instead of the table");

  return [a]() -> int { return run_scale_command(*a); };
}

}  // namespace pacer::cli
