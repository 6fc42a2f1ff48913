// pacer scale: a batch-size scaling study. For each algorithm and batch size, a quasi-random
// tuning study with a fixed step budget goes to the study store; steps-to-result per batch size,
// regimes, the critical-batch-size fit and the gradient noise scale come back from the store.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "commands.h"
#include "input_guards.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "core/format.h"
#include "dist/gradient_combiner.h"
#include "runtime/torch_runtime.h"
#include "scale/geometric_eval_steps.h"
#include "scale/scale_experiment.h"
#include "scale/scaling_study.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/sweep.h"
#include "tune/tuning_worker.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer::cli {
namespace {

struct ScaleArgs {
  std::string workload, algorithms, batch_sizes, metric, store = "runs/scale.db", out, name_prefix, device = "auto",
      data_dir;
  std::vector<std::string> spaces;
  std::optional<double> goal;
  int64_t trials = 8, max_steps = 0, evals = 20;
  double epochs = 0.0;
  int threads = 0, noise_scale = 0;
  uint64_t seed = 0, sampler_seed = 0;
  double perfect = 0.8, maximal = 0.2;
  bool quiet = false, all_splits = false, json = false;
  std::string eval_spacing = "linear";
  std::string combine, adasum_mode = "gradient";
  int virtual_workers = 1;
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int64_t parse_positive(const std::string& text, const std::string& what) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v <= 0) throw InputError(what + ": '" + text + "' is not a positive integer");
  return v;
}

// "16:4096" -> powers of two from 16 to 4096; "32,100,1000" -> that list.
std::vector<int64_t> parse_batch_sizes(const std::string& text) {
  std::vector<int64_t> out;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const int64_t lo = parse_positive(text.substr(0, colon), "--batch-sizes"),
                  hi = parse_positive(text.substr(colon + 1), "--batch-sizes");
    if (lo > hi) throw InputError("--batch-sizes " + text + ": the lower bound is above the upper one");
    for (int64_t b = 1; b <= hi; b *= 2) {
      if (b >= lo) out.push_back(b);
    }
    if (out.empty()) throw InputError("--batch-sizes " + text + ": no power of two in the range");
  } else {
    for (const auto& item : split(text, ',')) out.push_back(parse_positive(item, "--batch-sizes"));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  if (out.empty()) throw InputError("--batch-sizes: no batch size in '" + text + "'");
  return out;
}

}  // namespace

Action add_scale_command(CLI::App& app) {
  auto a = std::make_shared<ScaleArgs>();
  app.add_option("-w,--workload", a->workload, "Workload")->required();
  app.add_option("-a,--algorithm", a->algorithms, "Algorithm(s), comma-separated, one curve each")->required();
  app.add_option("--batch-sizes", a->batch_sizes, "LO:HI (powers of two) or a comma-separated list")->required();
  app.add_option("--trials", a->trials, "Quasi-random trials per batch size (more later extends the studies)")
      ->check(positive_number())->capture_default_str();
  app.add_option("--space", a->spaces, "Search space per algorithm, in -a order (default: spaces/<algorithm>.json)");
  app.add_option("--goal", a->goal, "Goal on --metric (default: the workload's validation target)");
  app.add_option("--metric", a->metric, "Eval metric of the goal (default: validation/<target metric>)");
  app.add_option("--max-steps", a->max_steps, "Step budget per trial, at every batch size")->check(positive_number());
  app.add_option("--epochs", a->epochs, "Step budget from this many epochs at the smallest batch size")
      ->check(positive_number());
  app.add_option("--evals", a->evals, "Evaluations per trial (spaced as --eval-spacing says)")->check(positive_number())
      ->capture_default_str();
  app.add_option("--combine", a->combine,
                 "Data-parallel combiners to compare, e.g. mean,adasum (one series per algorithm and combiner)");
  app.add_option("--virtual-workers", a->virtual_workers, "Virtual workers per step for --combine")
      ->check(positive_number())->capture_default_str();
  app.add_option("--adasum-mode", a->adasum_mode,
                 "Adasum series: gradient, or delta (local optimizer steps, deltas combined; series +adasum-delta)")
      ->check(CLI::IsMember({"gradient", "delta"}))->capture_default_str();
  app.add_option("--eval-spacing", a->eval_spacing,
                 "linear: every budget/evals steps; log: geometrically spaced (the same relative resolution of "
                 "steps-to-result at every batch size)")
      ->check(CLI::IsMember({"linear", "log"}))->capture_default_str();
  app.add_flag("--eval-all-splits", a->all_splits,
               "Evaluate train, validation and test at every eval (default: only the goal's split)");
  app.add_option("--noise-scale", a->noise_scale, "Log the gradient noise scale at every eval, from this many shards")
      ->check(non_negative_number());
  app.add_option("--seed", a->seed, "Base seed of the trials")->capture_default_str();
  app.add_option("--sampler-seed", a->sampler_seed, "Seed of the recorded shuffle of each study's points");
  app.add_option("--name", a->name_prefix, "Prefix of the experiment names (default: none; experiment = algorithm)");
  app.add_option("--store", a->store, "Study store (SQLite file or postgresql:// URI)")->capture_default_str();
  app.add_option("-o,--out", a->out, "Folder for scaling.json/.csv, the plot, report.html and the trial logs");
  app.add_option("--perfect-threshold", a->perfect, "Efficiency at or above which scaling counts as perfect")
      ->capture_default_str();
  app.add_option("--maximal-threshold", a->maximal, "Efficiency below which data parallelism is maximal")
      ->capture_default_str();
  app.add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--data-dir", a->data_dir, "Fashion-MNIST folder");
  app.add_option("--threads", a->threads, "Intra-op CPU threads")->check(non_negative_number());
  app.add_flag("-q,--quiet", a->quiet, "Only the table");
  app.add_flag("--json", a->json, "The result as JSON on stdout (scaling.json's content) instead of the table");

  return [a]() -> int {
    const WorkloadSpec& spec = workload_spec(a->workload);
    std::vector<std::string> algorithms = split(a->algorithms, ',');
    for (auto& name : algorithms) name = resolve_algorithm(name);  // names or plugin libraries
    if (algorithms.empty()) throw InputError("-a: no algorithm given");
    for (size_t i = 0; i < algorithms.size(); ++i) {  // one study per algorithm: a repeat would merge two
      if (std::find(algorithms.begin(), algorithms.begin() + static_cast<std::ptrdiff_t>(i), algorithms[i]) !=
          algorithms.begin() + static_cast<std::ptrdiff_t>(i)) {
        throw InputError("-a: '" + algorithms[i] + "' is given twice");
      }
    }
    if (!a->out.empty()) prepare_output_folder(a->out, "--out");  // unwritable: said before any study
    if (!a->spaces.empty() && a->spaces.size() != algorithms.size()) {
      throw InputError("--space: give one search space per algorithm (" + std::to_string(algorithms.size()) + ")");
    }
    const std::vector<int64_t> batch_sizes = parse_batch_sizes(a->batch_sizes);
    if ((a->max_steps > 0) == (a->epochs > 0)) throw InputError("give the step budget as --max-steps or --epochs (one of them)");
    if (!(a->maximal >= 0) || !(a->perfect > a->maximal)) {
      throw InputError("--perfect-threshold " + format_double("%g", a->perfect) + " and --maximal-threshold " +
                       format_double("%g", a->maximal) + " contradict each other: need 0 <= maximal < perfect");
    }
    // A batch size the training set cannot fill is refused before any study is written (it used
    // to fail trial by trial, after the smaller batch sizes had trained).
    int64_t train_size = 0;
    {
      auto workload = create_workload(a->workload);
      workload->load({a->data_dir, resolve_device(a->device)});
      train_size = workload->dataset(EvalSplit::train).size();
    }
    for (int64_t b : batch_sizes) {
      if (b > train_size) {
        throw InputError("--batch-sizes: " + std::to_string(b) + " is larger than " + a->workload +
                         "'s training set (" + std::to_string(train_size) + " examples)");
      }
    }
    int64_t budget = a->max_steps;
    if (a->epochs > 0) {
      budget = static_cast<int64_t>(
          std::ceil(a->epochs * static_cast<double>(train_size) / static_cast<double>(batch_sizes.front())));
    }
    ScalingGoal goal{a->metric.empty() ? "validation/" + spec.target_metric : a->metric,
                     a->goal.value_or(spec.validation_target), spec.higher_is_better};
    if (!a->metric.empty() && a->metric.find('/') == std::string::npos) goal.metric = "validation/" + a->metric;
    const EvalSplit goal_split = parse_eval_split(goal.metric.substr(0, goal.metric.find('/')));
    if (!spec.metrics.empty()) {  // a metric the workload never reports would read "never" everywhere
      const std::string name = goal.metric.substr(goal.metric.find('/') + 1);
      std::vector<std::string> valid = spec.metrics;
      if (goal_split == EvalSplit::train) {
        for (const char* probe : {"grad_norm", "grad_norm_mean", "grad_norm_max", "noise_scale"}) valid.push_back(probe);
      }
      if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
        std::string names;
        for (const auto& v : valid) names += (names.empty() ? "" : ", ") + v;
        throw InputError("--metric " + goal.metric + ": workload " + a->workload + " reports no '" + name +
                         "' (its metrics: " + names + ")");
      }
    }
    {  // a goal no eval can reach would read "never" at every batch size
      const std::string name = goal.metric.substr(goal.metric.find('/') + 1);
      const bool fraction = name == "accuracy" || name == "ssim" || name == "mean_average_precision" ||
                            name == "error_rate";
      if (fraction && !(goal.value >= (name == "ssim" ? -1.0 : 0.0) && goal.value <= 1.0)) {
        throw InputError("--goal " + std::to_string(goal.value) + ": " + name + " lies in [" +
                         (name == "ssim" ? "-1" : "0") + ", 1], so no eval can reach it");
      }
      if ((name == "loss" || name == "ce_loss" || name == "ppl") && goal.value < 0) {
        throw InputError("--goal " + std::to_string(goal.value) + ": " + name + " is never negative");
      }
    }
    if (a->noise_scale == 1) throw InputError("--noise-scale needs at least 2 shards");
    if (a->noise_scale > 0) {
      for (int64_t b : batch_sizes) {
        if (b % a->noise_scale != 0) {
          throw InputError("--noise-scale " + std::to_string(a->noise_scale) + ": batch size " + std::to_string(b) +
                           " does not split into that many equal shards");
        }
      }
    }

    std::vector<std::string> combines = split(a->combine, ',');
    // One batch size is a comparison of series (algorithms or combiners), not a scaling curve.
    if (batch_sizes.size() < 2 && algorithms.size() * std::max<size_t>(1, combines.size()) < 2) {
      throw InputError("--batch-sizes: a scaling study of one series needs at least two batch sizes");
    }
    for (const auto& c : combines) make_gradient_combiner(c);  // InputError naming an unknown one
    if (combines.empty()) {
      if (a->virtual_workers > 1) throw InputError("--virtual-workers needs --combine");
      combines.push_back("");
    }
    const bool deltas = a->adasum_mode == "delta";
    if (deltas && std::find(combines.begin(), combines.end(), "adasum") == combines.end()) {
      throw InputError("--adasum-mode delta needs adasum among --combine");
    }
    for (int64_t b : batch_sizes) {
      if (b % a->virtual_workers != 0) {
        throw InputError("--virtual-workers " + std::to_string(a->virtual_workers) + ": batch size " +
                         std::to_string(b) + " does not split into that many equal shards");
      }
    }

    std::vector<SweepSpec> sweeps;
    for (size_t i = 0; i < algorithms.size(); ++i) {
      const std::string space_file = a->spaces.empty() ? "spaces/" + algorithms[i] + ".json" : a->spaces[i];
      const SearchSpace space = SearchSpace::from_json_file(space_file);
      for (const auto& w : space.warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
      for (const std::string& combine : combines)
      for (int64_t b : batch_sizes) {
        SweepSpec s;
        s.experiment = scale_experiment_name(scale_series_name(a->name_prefix, algorithms[i], combine, deltas), b);
        s.workload = a->workload;
        s.algorithm = algorithms[i];
        s.space = space;
        s.space_origin = space_file;
        s.sampler_options.seed = a->sampler_seed;
        s.studies = 1;
        s.trials = a->trials;
        s.seed = a->seed;
        s.trial.device = a->device;
        s.trial.data_dir = a->data_dir;
        s.trial.batch_size = b;
        s.trial.max_steps = budget;
        if (a->eval_spacing == "log") {
          s.trial.eval_at_steps = geometric_eval_steps(budget, a->evals);
        } else {
          s.trial.eval_every_steps = std::max<int64_t>(1, budget / a->evals);
        }
        s.trial.time_budget = 1e9;  // the budget is in steps here
        s.trial.stop_at_targets = false;
        s.trial.goal = TrainingGoal{goal.metric, goal.value, goal.higher_is_better};
        s.trial.noise_scale_shards = a->noise_scale;
        if (!a->all_splits) s.trial.eval_splits = {goal_split};
        s.trial.data_parallel.combine = combine;
        s.trial.data_parallel.virtual_workers = a->virtual_workers;
        s.trial.data_parallel.combine_deltas = deltas && combine == "adasum";  // mean and sum always combine gradients
        validate_sweep(s);
        sweeps.push_back(s);
      }
    }
    resolve_device(a->device);
    make_store_folder(a->store);
    StudyStore store(a->store);
    const std::vector<StudyRecord> studies = plan_sweeps(store, sweeps);
    set_num_threads(a->threads);

    Progress progress(a->quiet ? Progress::Mode::quiet : Progress::auto_detect());
    progress.log("pacer scale: " + a->workload + ", " + std::to_string(algorithms.size()) + " algorithm(s) x " +
                 (combines.size() > 1 || !combines.front().empty()
                      ? std::to_string(combines.size()) + " combiner(s) (" + std::to_string(a->virtual_workers) +
                            " virtual workers) x "
                      : std::string()) +
                 std::to_string(batch_sizes.size()) + " batch sizes x " + std::to_string(a->trials) + " trials, " +
                 std::to_string(budget) + " steps each at most, goal " + goal.metric + " " +
                 (goal.higher_is_better ? "> " : "< ") + std::to_string(goal.value));
    WorkerOptions options;
    options.out_dir = a->out.empty() ? "" : a->out + "/logs";
    options.experiment_folders = true;
    options.progress = &progress;
    const WorkerReport worker = run_tuning_worker(a->store, studies, options);

    const ScalingReport report = read_scaling_study(store, studies, goal, {a->perfect, a->maximal});
    std::fputs(a->json ? scaling_json_text(report).c_str() : scaling_table_text(report).c_str(), stdout);
    if (!a->out.empty()) {
      write_scaling_outputs(report, a->out);
      std::fprintf(a->json ? stderr : stdout, "\nwrote %s/{scaling.json, scaling.csv, steps_vs_batch_size.svg, report.html}\n", a->out.c_str());
    }
    return worker.interrupted ? 130 : 0;
  };
}

}  // namespace pacer::cli
