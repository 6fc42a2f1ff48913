// pacer scale: a batch-size scaling study. For each algorithm and batch size, a quasi-random
// tuning study with a fixed step budget goes to the study store; steps-to-result per batch size,
// regimes, the critical-batch-size fit and the gradient noise scale come back from the store.
// This half (in both programs) takes the options, writes the report and, with --no-run, reads it
// from the store without LibTorch; the studies run in pacer-train (scale_training.cpp).
#include <cstdio>
#include <limits>
#include <memory>

#include "commands.h"
#include "input_guards.h"
#include "scale_command.h"
#include "training_layer.h"
#include "catalog/algorithm_reference.h"
#include "core/output_folder.h"
#include "store/study_store.h"
#include "tune/sweep.h"

namespace pacer::cli {
namespace {

// The training set's size is the training layer's (it loads the workload's data). The light
// pacer's stand-in: without --epochs the size only checks batch sizes, and --no-run creates no
// study to check.
TrainingSetSize training_set_size_in(const TrainingLayer* training) {
  return [training](const std::string& workload, const std::string& data_dir, const std::string& device) {
    return training ? training->training_set_size(workload, data_dir, device) : std::numeric_limits<int64_t>::max();
  };
}

// --no-run: the studies of this plan as the store holds them, writing nothing there. Without a
// training layer, a plugin or Python submission, or a step budget in epochs (the training set's
// size is the data's), hands the command on.
Outcome read_scale_command(const ScaleArgs& a, const TrainingLayer* training) {
  if (training) {
    training->declare_algorithm_files(a.request.algorithms);
  } else {
    for (const auto& value : a.request.algorithms)
      if (algorithm_reference(value).names_a_file())
        return Outcome::hand_on("'" + value + "' is loaded by the training program");
    if (a.request.epochs > 0) return Outcome::hand_on("--epochs needs the training set's size");
  }
  const ScalePlan plan = plan_scale(a.request, training_set_size_in(training));
  for (const auto& w : plan.warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
  if (!a.out.empty()) prepare_output_folder(a.out, "--out");
  const StudyStore store(a.store, StudyStoreOptions::reading());
  const std::vector<StudyRecord> studies = find_sweep_studies(store, plan.sweeps);
  std::vector<int64_t> ids;
  for (const auto& s : studies) ids.push_back(s.id);
  const StudyProgress progress = store.progress(ids);
  if (studies.size() < plan.sweeps.size() || !progress.finished())
    std::fprintf(stderr, "pacer scale --no-run: %s holds %zu of the %zu studies, %lld of their trials not ended: the report shows what is there\n",
                 store.path().c_str(), studies.size(), plan.sweeps.size(),
                 static_cast<long long>(progress.pending + progress.running));
  print_scaling_report(a, read_scaling_study(store, studies, plan.goal, {a.request.perfect, a.request.maximal}));
  return 0;
}

}  // namespace

void print_scaling_report(const ScaleArgs& a, const ScalingReport& report) {
  std::fputs(a.json ? scaling_json_text(report).c_str() : scaling_table_text(report).c_str(), stdout);
  if (a.out.empty()) return;
  write_scaling_outputs(report, a.out);
  std::fprintf(a.json ? stderr : stdout, "\nwrote %s/{scaling.json, scaling.csv, steps_vs_batch_size.svg, report.html}\n",
               a.out.c_str());
}

Action add_scale_command(CLI::App& app, const CommandContext& context) {
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
  app.add_option("--worker-batch", a->request.worker_batch,
                 "Examples per virtual worker at every batch size (batch / this many workers; instead of --virtual-workers)")
      ->check(positive_number());
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
  app.add_flag("--race", a->race,
               "Stop a trial once it can no longer lower its study's steps-to-result (fewer steps trained; "
               "results and best trials unchanged)");
  app.add_flag("-q,--quiet", a->quiet, "Only the table");
  app.add_flag("--json", a->json, "The result as JSON on stdout (scaling.json's content) instead of the table");

  app.add_flag("--no-run", a->no_run, "Only read the studies from the store and write the report (runs nothing)");
  return [a, training = context.training]() -> Outcome {
    if (a->no_run) return read_scale_command(*a, training);
    if (!training) return Outcome::hand_on("");  // the command trains
    return training->scale(*a);
  };
}

}  // namespace pacer::cli
