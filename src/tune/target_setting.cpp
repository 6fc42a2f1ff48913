#include "tune/target_setting.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/format.h"
#include "catalog/algorithm_infos.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

TargetSetter::TargetSetter(TargetSettingOptions options) : options_(std::move(options)) {
  const WorkloadSpec& spec = workload_spec(options_.workload);
  metric_ = spec.target_metric;
  higher_is_better_ = spec.higher_is_better;
  const int64_t hint = options_.step_hint > 0 ? options_.step_hint : spec.step_hint;
  if (options_.algorithms.empty()) throw InputError("targets: --algorithms is empty");
  const auto known = algorithm_names();
  for (const auto& a : options_.algorithms)
    if (std::find(known.begin(), known.end(), a) == known.end())
      throw InputError("targets: unknown algorithm '" + a + "' in --algorithms");
  if (options_.trials < 1) throw InputError("targets: --trials must be at least 1");
  if (options_.reruns < 2) throw InputError("targets: --reruns must be at least 2 (a median of one run is no target)");
  if (!(options_.step_fraction > 0.0 && options_.step_fraction <= 10.0))
    throw InputError("targets: --step-fraction must be in (0, 10]");
  if (!(options_.budget_factor >= 1.0 && std::isfinite(options_.budget_factor)))
    throw InputError("targets: --budget-factor must be at least 1");
  steps_ = std::max<int64_t>(1, std::llround(options_.step_fraction * static_cast<double>(hint)));
  eval_every_ = options_.eval_every > 0 ? options_.eval_every : std::max<int64_t>(1, steps_ / 20);
}

bool TargetSetter::better(double a, double b) const { return higher_is_better_ ? a > b : a < b; }

std::vector<SweepSpec> TargetSetter::search_sweeps() const {
  std::vector<SweepSpec> sweeps;
  for (const auto& algorithm : options_.algorithms) {
    SweepSpec s;
    s.experiment = "targets-search";
    s.workload = options_.workload;
    s.algorithm = algorithm;
    s.ruleset = Ruleset::external;
    s.space_origin = options_.space_dir + "/" + algorithm + ".json";
    s.space = SearchSpace::from_json_file(s.space_origin);
    s.sampler = "halton";
    s.sampler_options.seed = options_.seed;
    s.studies = 1;
    s.trials = options_.trials;
    s.seed = options_.seed;
    s.trial = options_.trial;
    s.trial.max_steps = steps_;
    s.trial.eval_every_steps = eval_every_;
    s.trial.stop_at_targets = false;  // the targets are what this finds
    s.trial.time_budget = 1e9;        // step-limited, never time-limited
    s.trial.eval_splits.clear();
    sweeps.push_back(s);
  }
  return sweeps;
}

std::vector<TargetRun> TargetSetter::runs(const StudyStore& store, const std::vector<StudyRecord>& studies) const {
  const std::string validation_key = "validation/" + metric_, test_key = "test/" + metric_;
  std::vector<TargetRun> out;
  for (const auto& study : studies) {
    for (const auto& trial : store.trials(study.id)) {
      if (!is_terminal(trial.status)) continue;
      TargetRun run;
      run.algorithm = study.algorithm;
      run.trial_index = trial.index;
      run.seed = trial.seed;
      run.hparams_json = trial.hparams_json.value_or("{}");
      run.status = to_string(trial.status);
      for (const auto& eval : store.evals(trial.id)) {
        const std::optional<double> v = finite_metric(eval, validation_key);
        if (!v) continue;
        run.validation_curve.emplace_back(eval.accumulated_submission_time, *v);
        run.validation_steps.push_back(eval.step);
        if (!run.best_validation || better(*v, *run.best_validation)) {
          run.best_validation = *v;
          run.best_step = eval.step;
          run.test_at_best = finite_metric(eval, test_key);
        }
      }
      out.push_back(run);
    }
  }
  return out;
}

SweepSpec TargetSetter::rerun_sweep(const StudyStore& store, const std::vector<StudyRecord>& search) const {
  const TargetRun* best = nullptr;
  const auto all = runs(store, search);
  for (const auto& run : all)
    if (run.status == "complete" && run.best_validation && (!best || better(*run.best_validation, *best->best_validation)))
      best = &run;
  if (!best) throw InputError("targets: no search run of " + options_.workload + " finished with a finite validation " + metric_);
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (int64_t i = 0; i < options_.reruns; ++i) points.push_back(nlohmann::ordered_json::parse(best->hparams_json));
  SweepSpec s;
  s.experiment = "targets-rerun";
  s.workload = options_.workload;
  s.algorithm = best->algorithm;
  s.ruleset = Ruleset::external;
  s.space = SearchSpace::from_json_text(points.dump(), "the best search point");
  s.space_origin = "the best search point";
  s.sampler = "list";
  s.studies = 1;
  s.trials = options_.reruns;
  s.seed = options_.seed + 1;  // fresh seeds, not the search's
  s.trial = search_sweeps().front().trial;
  return s;
}

SweepSpec TargetSetter::timing_sweep(const StudyStore& store, const std::vector<StudyRecord>& reruns) const {
  const StudyRecord& rerun = reruns.at(0);
  const auto trials = store.trials(rerun.id);
  if (trials.empty()) throw InputError("targets: the re-run study of " + options_.workload + " holds no trial");
  SweepSpec s;
  s.experiment = "targets-timing";
  s.workload = options_.workload;
  s.algorithm = rerun.algorithm;
  s.ruleset = Ruleset::external;
  s.space = SearchSpace::from_json_text("[" + trials.front().hparams_json.value_or("{}") + "]", "the best search point");
  s.space_origin = "the best search point";
  s.sampler = "list";
  s.studies = 1;
  s.trials = 1;
  s.seed = options_.seed + 2;  // neither the search's nor the re-runs'
  s.trial = search_sweeps().front().trial;
  s.trial.max_steps = options_.timing_steps;
  s.trial.eval_every_steps = options_.timing_steps;  // one eval, at the end (off the clock)
  return s;
}

StepTiming TargetSetter::timing(const StudyStore& store, const std::vector<StudyRecord>& timing_studies) const {
  const StudyRecord& study = timing_studies.at(0);
  const auto trials = store.trials(study.id);
  if (trials.empty() || !trials.front().result) throw Error("targets: the timing run of the best point has not run");
  const TrialRecord& trial = trials.front();
  const TrialOutcome& result = *trial.result;
  if (trial.status != StoredTrialStatus::complete || result.steps <= 0 || !(result.submission_time > 0.0))
    throw Error("targets: the timing run of the best point did not train: " + result.message);
  StepTiming t;
  t.seconds_per_step = result.submission_time / static_cast<double>(result.steps);
  t.measured_with = "the best point alone after the re-runs: " + std::to_string(result.steps) + " steps, seed " +
                    std::to_string(trial.seed) + ", " +
                    (result.threads > 0 ? std::to_string(result.threads) : std::string("an unrecorded number of")) +
                    " thread(s) on " +
                    (result.device.empty() ? TrialSpec::from_json(study.trial_spec).device + " (as asked: the device it ran on is not recorded)"
                                           : result.device);
  return t;
}

namespace {

// One run of the search or the re-runs as the record lists it.
nlohmann::ordered_json run_json(const TargetRun& run) {
  nlohmann::ordered_json j;
  j["algorithm"] = run.algorithm;
  j["trial"] = run.trial_index;
  j["seed"] = std::to_string(run.seed);
  j["hparams"] = nlohmann::ordered_json::parse(run.hparams_json);
  j["status"] = run.status;
  j["best_validation"] = run.best_validation ? nlohmann::ordered_json(*run.best_validation) : nlohmann::ordered_json(nullptr);
  j["best_step"] = run.best_step;
  j["test_at_best"] = run.test_at_best ? nlohmann::ordered_json(*run.test_at_best) : nlohmann::ordered_json(nullptr);
  return j;
}

// The budget: budget_factor x the median steps to target x the seconds per step measured alone,
// or, without that timing, budget_factor x the re-runs' median time to target.
void add_budget(nlohmann::ordered_json& r, double budget_factor, const std::vector<double>& times,
                const std::vector<double>& steps, size_t reruns, const std::optional<StepTiming>& timing) {
  const double median_time = times.empty() ? 0.0 : median(times);
  r["median_time_to_target_s"] = median_time;
  r["budget_factor"] = budget_factor;
  const double budget_from_times = std::ceil(budget_factor * median_time);
  if (timing && !steps.empty()) {
    const double median_steps = median(steps);
    r["budget_s"] = std::ceil(budget_factor * median_steps * timing->seconds_per_step);
    r["budget_under_load_s"] = budget_from_times;
    r["budget_basis"] = {{"rule", "budget_factor x median steps to target x seconds per step measured alone"},
                         {"median_steps_to_target", median_steps},
                         {"reruns_reaching", steps.size()},
                         {"reruns", reruns},
                         {"seconds_per_step_alone", timing->seconds_per_step},
                         {"measured_with", timing->measured_with}};
  } else {
    r["budget_s"] = budget_from_times;
  }
}

}  // namespace

nlohmann::ordered_json TargetSetter::record(const StudyStore& store, const std::vector<StudyRecord>& search,
                                            const std::vector<StudyRecord>& reruns,
                                            const std::optional<StepTiming>& timing) const {
  using nlohmann::ordered_json;
  const WorkloadSpec& spec = workload_spec(options_.workload);
  ordered_json r;
  r["workload"] = options_.workload;
  r["procedure"] = "pacer targets (AlgoPerf target setting, scaled down; docs/targets.md)";
  r["metric"] = metric_;
  r["higher_is_better"] = higher_is_better_;
  r["step_hint"] = options_.step_hint > 0 ? options_.step_hint : spec.step_hint;
  r["steps_per_run"] = steps_;
  r["eval_every"] = eval_every_;
  r["algorithms"] = options_.algorithms;
  r["trials_per_algorithm"] = options_.trials;
  r["seed"] = std::to_string(options_.seed);
  ordered_json search_runs = ordered_json::array();
  for (const auto& run : runs(store, search)) search_runs.push_back(run_json(run));
  r["search"] = search_runs;

  const auto rerun_list = runs(store, reruns);
  std::vector<double> best_values;
  for (const auto& run : rerun_list)
    if (run.best_validation) best_values.push_back(*run.best_validation);
  if (best_values.size() < 2) throw InputError("targets: fewer than two re-runs finished with a finite validation value");
  const double validation_target = median(best_values);
  std::optional<double> test_target;
  std::vector<double> times, steps;
  for (const auto& run : rerun_list) {
    if (!run.best_validation || !spec.reached(*run.best_validation, validation_target, false)) continue;
    if (run.test_at_best && (!test_target || better(*test_target, *run.test_at_best))) test_target = run.test_at_best;
    for (size_t i = 0; i < run.validation_curve.size(); ++i) {
      if (spec.reached(run.validation_curve[i].second, validation_target, false)) {
        times.push_back(run.validation_curve[i].first);
        steps.push_back(static_cast<double>(run.validation_steps.at(i)));
        break;
      }
    }
  }
  // Each re-run with the first eval step at which it reached the validation target (or null).
  ordered_json rerun_json = ordered_json::array();
  for (const auto& run : rerun_list) {
    ordered_json j = run_json(run);
    j["step_to_target"] = nullptr;
    for (size_t i = 0; i < run.validation_curve.size(); ++i) {
      if (spec.reached(run.validation_curve[i].second, validation_target, false)) {
        j["step_to_target"] = run.validation_steps.at(i);
        break;
      }
    }
    rerun_json.push_back(j);
  }
  if (!rerun_list.empty()) {
    r["best_point"] = {{"algorithm", rerun_list.front().algorithm},
                       {"hparams", ordered_json::parse(rerun_list.front().hparams_json)}};
  }
  r["reruns"] = rerun_json;
  r["validation_target"] = validation_target;
  r["test_target"] = test_target ? ordered_json(*test_target) : ordered_json(nullptr);
  add_budget(r, options_.budget_factor, times, steps, rerun_list.size(), timing);
  std::sort(best_values.begin(), best_values.end());
  r["rerun_best_validation"] = {{"min", best_values.front()}, {"median", validation_target}, {"max", best_values.back()}};
  return r;
}

nlohmann::ordered_json read_targets(const TargetSetter& setter, const StudyStore& store) {
  // The studies of `sweeps` as stored, each holding at least its runs, all of them ended.
  const auto finished = [&store](const std::vector<SweepSpec>& sweeps, const std::string& what) {
    const auto studies = find_sweep_studies(store, sweeps);
    if (studies.size() < sweeps.size())
      throw InputError("targets --no-run: " + store.path() + " holds no " + what + " of these settings; run without --no-run");
    std::vector<int64_t> ids;
    int64_t wanted = 0;
    for (const auto& s : studies) ids.push_back(s.id);
    for (const auto& s : sweeps) wanted += s.trials * s.studies;
    const StudyProgress p = store.progress(ids);
    if (!p.finished() || p.done < wanted)
      throw InputError("targets --no-run: the " + what + " in " + store.path() + ": " + std::to_string(p.done) + " of " +
                       std::to_string(std::max(wanted, p.done + p.pending + p.running)) +
                       " runs ended; run without --no-run to finish them");
    return studies;
  };
  const auto search = finished(setter.search_sweeps(), "search");
  const auto reruns = finished({setter.rerun_sweep(store, search)}, "re-runs of the best point");
  std::optional<StepTiming> timing;
  if (setter.options().timing_steps > 0)
    timing = setter.timing(store, finished({setter.timing_sweep(store, reruns)}, "timing run of the best point"));
  return setter.record(store, search, reruns, timing);
}

std::string target_summary(const nlohmann::ordered_json& record, const TargetSettingOptions& options,
                           const std::string& record_path) {
  const auto& range = record["rerun_best_validation"];
  auto g = [](const char* format, const nlohmann::ordered_json& v) { return format_double(format, v.get<double>()); };
  std::string s = "workload:           " + options.workload + " (" + record["metric"].get<std::string>() + ", " +
                  (record["higher_is_better"].get<bool>() ? "higher is better" : "lower is better") + ")\n";
  s += "best point:         " + record["best_point"]["algorithm"].get<std::string>() + " " +
       record["best_point"]["hparams"].dump() + "\n";
  s += "re-runs' best:      min " + g("%.4g", range["min"]) + ", median " + g("%.4g", range["median"]) + ", max " +
       g("%.4g", range["max"]) + "\n";
  s += "validation target:  " + g("%.4g", record["validation_target"]) + "\n";
  s += "test target:        " +
       (record["test_target"].is_null() ? std::string("none (no re-run reached the validation target)")
                                        : g("%.4g", record["test_target"])) +
       "\n";
  const std::string factor = format_double("%.3g", options.budget_factor);
  if (record.contains("budget_basis")) {
    const auto& basis = record["budget_basis"];
    s += "budget:             " + g("%.4g", record["budget_s"]) + " s (" + factor + " x median steps to target " +
         g("%.6g", basis["median_steps_to_target"]) + " x " + g("%.4g", basis["seconds_per_step_alone"]) +
         " s per step alone; from the re-runs' times it would be " + g("%.4g", record["budget_under_load_s"]) + " s)\n";
  } else {
    s += "budget:             " + g("%.4g", record["budget_s"]) + " s (" + factor + " x median time to target " +
         g("%.4g", record["median_time_to_target_s"]) + " s)\n";
  }
  if (!record_path.empty()) s += "record:             " + record_path + "\n";
  return s;
}

}  // namespace pacer
