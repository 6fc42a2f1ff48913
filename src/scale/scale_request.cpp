#include "scale/scale_request.h"

#include <algorithm>
#include <cmath>

#include "catalog/combiner_names.h"
#include "catalog/plugin_records.h"
#include "catalog/training_goal.h"
#include "catalog/workload_specs.h"
#include "core/error.h"
#include "core/format.h"
#include "scale/geometric_eval_steps.h"
#include "scale/scale_experiment.h"

namespace pacer {
namespace {

std::vector<std::string> non_empty(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items)
    if (!item.empty()) out.push_back(item);
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

std::vector<std::string> resolved_algorithms(const std::vector<std::string>& given) {
  std::vector<std::string> algorithms = non_empty(given);
  if (algorithms.empty()) throw InputError("-a: no algorithm given");
  for (auto& name : algorithms) name = algorithm_name_of(name);  // names, or files the command loaded
  for (auto it = algorithms.begin(); it != algorithms.end(); ++it) {  // one study per algorithm: a repeat would merge two
    if (std::find(algorithms.begin(), it, *it) != it) throw InputError("-a: '" + *it + "' is given twice");
  }
  return algorithms;
}

// Each batch size must split into the noise-scale probe's shards and the virtual workers.
void check_shards(const std::vector<int64_t>& batch_sizes, int shards, const std::string& option) {
  for (int64_t b : batch_sizes) {
    if (b % shards != 0) {
      throw InputError(option + " " + std::to_string(shards) + ": batch size " + std::to_string(b) +
                       " does not split into that many equal shards");
    }
  }
}

// The combiners (one series each; {""}: none) and whether Adasum combines optimizer-step deltas.
std::pair<std::vector<std::string>, bool> checked_combiners(const ScaleRequest& request, const ScalePlan& plan) {
  std::vector<std::string> combines = non_empty(request.combines);
  // One batch size is a comparison of series (algorithms or combiners), not a scaling curve.
  if (plan.batch_sizes.size() < 2 && plan.algorithms.size() * std::max<size_t>(1, combines.size()) < 2)
    throw InputError("--batch-sizes: a scaling study of one series needs at least two batch sizes");
  for (const auto& c : combines) check_combiner_name(c);
  if (combines.empty()) {
    if (request.virtual_workers > 1) throw InputError("--virtual-workers needs --combine");
    if (request.worker_batch > 0) throw InputError("--worker-batch needs --combine");
    combines.push_back("");
  }
  const bool deltas = request.adasum_mode == "delta";
  if (request.adasum_mode != "gradient" && !deltas)
    throw InputError("--adasum-mode " + request.adasum_mode + ": give gradient or delta");
  if (deltas && std::find(combines.begin(), combines.end(), "adasum") == combines.end())
    throw InputError("--adasum-mode delta needs adasum among --combine");
  if (request.virtual_workers < 1) throw InputError("--virtual-workers must be at least 1");
  check_shards(plan.batch_sizes, request.virtual_workers, "--virtual-workers");
  if (request.worker_batch < 0) throw InputError("--worker-batch must not be negative");
  if (request.worker_batch > 0) {
    if (request.virtual_workers > 1) throw InputError("give --worker-batch or --virtual-workers, not both");
    for (int64_t b : plan.batch_sizes) {
      if (b % request.worker_batch != 0) {
        throw InputError("--worker-batch " + std::to_string(request.worker_batch) + ": batch size " + std::to_string(b) +
                         " is not a whole number of workers' batches");
      }
    }
  }
  return {combines, deltas};
}

// What every trial of one series at batch size b measures.
TrialSpec scale_trial(const ScaleRequest& request, const ScalePlan& plan, int64_t b, const std::string& combine,
                      bool deltas) {
  TrialSpec t;
  t.device = request.device;
  t.data_dir = request.data_dir;
  t.batch_size = b;
  t.max_steps = plan.budget;
  if (request.eval_spacing == "log") {
    t.eval_at_steps = geometric_eval_steps(plan.budget, request.evals);
  } else {
    t.eval_every_steps = std::max<int64_t>(1, plan.budget / request.evals);
  }
  t.time_budget = 1e9;  // the budget is in steps here
  t.stop_at_targets = false;
  t.goal = plan.goal;
  t.noise_scale_shards = request.noise_scale;
  if (!request.all_splits) t.eval_splits = {parse_eval_split(plan.goal.metric.substr(0, plan.goal.metric.find('/')))};
  t.data_parallel.combine = combine;
  t.data_parallel.virtual_workers =
      request.worker_batch > 0 ? static_cast<int>(b / request.worker_batch) : request.virtual_workers;
  t.data_parallel.combine_deltas = deltas && combine == "adasum";  // mean and sum always combine gradients
  return t;
}

}  // namespace

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
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      if (comma > start) out.push_back(parse_positive(text.substr(start, comma - start), "--batch-sizes"));
      start = comma + 1;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  if (out.empty()) throw InputError("--batch-sizes: no batch size in '" + text + "'");
  return out;
}

ScalePlan plan_scale(const ScaleRequest& request, const TrainingSetSize& training_set_size) {
  const WorkloadSpec& spec = workload_spec(request.workload);
  ScalePlan plan;
  plan.algorithms = resolved_algorithms(request.algorithms);
  if (!request.spaces.empty() && request.spaces.size() != plan.algorithms.size())
    throw InputError("--space: give one search space per algorithm (" + std::to_string(plan.algorithms.size()) + ")");
  plan.batch_sizes = parse_batch_sizes(request.batch_sizes);
  if ((request.max_steps > 0) == (request.epochs > 0)) throw InputError("give the step budget as --max-steps or --epochs (one of them)");
  if (request.trials < 1) throw InputError("--trials must be at least 1");
  if (request.evals < 1) throw InputError("--evals must be at least 1");
  if (request.eval_spacing != "linear" && request.eval_spacing != "log")
    throw InputError("--eval-spacing " + request.eval_spacing + ": give linear or log");
  if (!(request.maximal >= 0) || !(request.perfect > request.maximal)) {
    throw InputError("--perfect-threshold " + format_double("%g", request.perfect) + " and --maximal-threshold " +
                     format_double("%g", request.maximal) + " contradict each other: need 0 <= maximal < perfect");
  }
  // A batch size the training set cannot fill is refused before any study is written (it used to
  // fail trial by trial, after the smaller batch sizes had trained).
  const int64_t train_size = training_set_size(request.workload, request.data_dir, request.device);
  for (int64_t b : plan.batch_sizes) {
    if (b > train_size) {
      throw InputError("--batch-sizes: " + std::to_string(b) + " is larger than " + request.workload +
                       "'s training set (" + std::to_string(train_size) + " examples)");
    }
  }
  plan.budget = request.max_steps;
  if (request.epochs > 0)
    plan.budget = static_cast<int64_t>(
        std::ceil(request.epochs * static_cast<double>(train_size) / static_cast<double>(plan.batch_sizes.front())));
  // The workload's validation target unless --goal/--metric say otherwise; a metric the workload
  // never reports, or a value no eval can reach, would read "never" at every batch size.
  plan.goal = resolve_training_goal(spec, request.metric, request.goal);
  if (request.noise_scale == 1) throw InputError("--noise-scale needs at least 2 shards");
  if (request.noise_scale < 0) throw InputError("--noise-scale must not be negative");
  if (request.noise_scale > 0) check_shards(plan.batch_sizes, request.noise_scale, "--noise-scale");
  bool deltas = false;
  std::tie(plan.combines, deltas) = checked_combiners(request, plan);

  for (size_t i = 0; i < plan.algorithms.size(); ++i) {
    const std::string space_file = request.spaces.empty() ? "spaces/" + plan.algorithms[i] + ".json" : request.spaces[i];
    const SearchSpace space = SearchSpace::from_json_file(space_file);
    plan.warnings.insert(plan.warnings.end(), space.warnings.begin(), space.warnings.end());
    for (const std::string& combine : plan.combines) {
      for (int64_t b : plan.batch_sizes) {
        SweepSpec s;
        s.experiment = scale_experiment_name(scale_series_name(request.name_prefix, plan.algorithms[i], combine, deltas), b);
        s.workload = request.workload;
        s.algorithm = plan.algorithms[i];
        s.space = space;
        s.space_origin = space_file;
        s.sampler_options.seed = request.sampler_seed;
        s.studies = 1;
        s.trials = request.trials;
        s.seed = request.seed;
        s.trial = scale_trial(request, plan, b, combine, deltas);
        validate_sweep(s);
        plan.sweeps.push_back(std::move(s));
      }
    }
  }
  return plan;
}

std::string ScalePlan::headline(const ScaleRequest& request) const {
  const bool combined = combines.size() > 1 || !combines.front().empty();
  return "pacer scale: " + request.workload + ", " + std::to_string(algorithms.size()) + " algorithm(s) x " +
         (combined ? std::to_string(combines.size()) + " combiner(s) (" +
                         (request.worker_batch > 0 ? std::to_string(request.worker_batch) + " examples per virtual worker"
                                                   : std::to_string(request.virtual_workers) + " virtual workers") +
                         ") x "
                   : std::string()) +
         std::to_string(batch_sizes.size()) + " batch sizes x " + std::to_string(request.trials) + " trials, " +
         std::to_string(budget) + " steps each at most, goal " + goal.metric + " " +
         (goal.higher_is_better ? "> " : "< ") + std::to_string(goal.value);
}

}  // namespace pacer
