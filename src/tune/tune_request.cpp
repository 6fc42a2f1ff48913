#include "tune/tune_request.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "catalog/plugin_records.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "tune/study_summary.h"
#include "catalog/suites.h"

namespace pacer {
namespace {

// The workloads of a request: the named ones or the suite's, plus (rules v0.5, a suite) one
// held-out variant per base workload, drawn by a seed the plan records.
std::vector<std::string> planned_workloads(const TuneRequest& request, TunePlan& plan) {
  if (!request.suite.empty() && !request.workloads.empty())
    throw InputError("give either -w/--workload or --suite, not both");
  std::vector<std::string> workloads = request.suite.empty() ? request.workloads : workload_suite(request.suite);
  if (workloads.empty()) throw InputError("no workload: give -w/--workload NAME or --suite NAME");
  plan.held_out_seed = request.held_out_seed.value_or(request.seed);
  if (plan.rules->held_out_variants && !request.suite.empty()) {
    plan.held_out = draw_held_out_variants(workloads, plan.held_out_seed);
    for (const auto& name : plan.held_out)
      if (std::find(workloads.begin(), workloads.end(), name) == workloads.end()) workloads.push_back(name);
  }
  return workloads;
}

}  // namespace

TunePlan plan_tune(const TuneRequest& request) {
  TunePlan plan;
  plan.rules = &rules_preset(request.rules.empty() ? default_rules_name() : request.rules);
  plan.suite = request.suite;
  const std::vector<std::string> workloads = planned_workloads(request, plan);
  plan.ruleset = request.ruleset;
  plan.algorithm = algorithm_name_of(request.algorithm);  // a name, or a file the command loaded
  plan.experiment = request.experiment.empty() ? plan.algorithm : request.experiment;
  plan.space_file = request.space_file;
  // A Python submission in AlgoPerf's layout brings its own search space.
  if (const LoadedPlugin* plugin = plugin_of(plan.algorithm);
      plan.space_file.empty() && plan.ruleset == Ruleset::external && plugin && !plugin->search_space.empty()) {
    plan.space_file = plugin->search_space;
    plan.space_from_submission = true;
  }
  // As `pacer board` does (its --spaces spaces): the search space the repository ships for the
  // algorithm, said in a warning, rather than refusing for want of --space.
  std::string shipped_note;
  if (plan.space_file.empty() && plan.ruleset == Ruleset::external) {
    const std::string shipped = "spaces/" + plan.algorithm + ".json";
    std::error_code ec;
    if (std::filesystem::is_regular_file(shipped, ec)) {
      plan.space_file = shipped;
      shipped_note = "no --space given: tuning over " + shipped + ", the search space shipped for " + plan.algorithm;
    }
  }
  std::optional<SearchSpace> space;
  if (!plan.space_file.empty()) {
    space = SearchSpace::from_json_file(plan.space_file);
    plan.warnings = space->warnings;
  }
  if (!shipped_note.empty()) plan.warnings.insert(plan.warnings.begin(), shipped_note);
  if (!request.scientific.empty()) plan.scientific = parse_scientific(request.scientific);

  SweepSpec base;
  base.experiment = plan.experiment;
  base.algorithm = plan.algorithm;
  base.ruleset = plan.ruleset;
  base.space = space;
  base.space_origin = plan.space_file;
  base.sampler = request.sampler == "quasi_random" ? "halton" : request.sampler;
  base.sampler_options = request.sampler_options;
  base.studies = request.studies > 0 ? request.studies : plan.rules->num_studies;
  base.trials = request.trials > 0 ? request.trials : plan.ruleset == Ruleset::self ? 1 : kDefaultTrialsPerStudy;
  base.seed = request.seed;
  base.trial = request.trial;
  if (!base.trial.budget_multiplier) base.trial.budget_multiplier = default_budget_multiplier(plan.ruleset, *plan.rules);
  base.trial.validate();
  for (const auto& workload : workloads) {
    SweepSpec sweep = base;
    sweep.workload = workload;
    if (!plan.scientific) {
      plan.sweeps.push_back(std::move(sweep));
      continue;
    }
    if (sweep.trial.workload_options.count(plan.scientific->name)) {
      throw InputError("--scientific " + plan.scientific->name + " and --workload-option " + plan.scientific->name +
                       ": give the values in one place");
    }
    for (auto& one : expand_scientific(sweep, *plan.scientific)) plan.sweeps.push_back(std::move(one));
  }
  for (const auto& sweep : plan.sweeps) validate_sweep(sweep);
  return plan;
}

std::string TunePlan::headline(const std::string& store_path, const StudyProgress& before) const {
  const SweepSpec& first = sweeps.front();
  return "pacer tune: " + std::to_string(sweeps.size()) +
         (scientific ? " sweeps (workloads x values of " + scientific->name + ")" : " workload(s)") + " x " +
         std::to_string(first.studies) + " studies x " + std::to_string(first.trials) + " trials (" +
         to_string(ruleset) + " tuning, " + rules->name + "); store " + store_path + ": " +
         std::to_string(before.done) + " done, " + std::to_string(before.pending + before.running) + " to run";
}

std::string TunePlan::held_out_line() const {
  if (held_out.empty()) return "";
  std::string names;
  for (const auto& name : held_out) names += (names.empty() ? "" : ", ") + name;
  return "held-out variants (" + rules->name + ", seed " + std::to_string(held_out_seed) + "): " + names;
}

void write_held_out_record(const TunePlan& plan, const std::string& out_dir) {
  if (plan.held_out.empty() || out_dir.empty()) return;
  create_directories(out_dir);
  const nlohmann::ordered_json record = {{"rules", plan.rules->name},
                                         {"seed", std::to_string(plan.held_out_seed)},
                                         {"suite", plan.suite},
                                         {"held_out_workloads", plan.held_out}};
  write_file_atomic(out_dir + "/held_out_workloads.json", record.dump(2) + "\n");
}

std::string store_overhead_line(const WorkerReport& report) {
  if (report.trials_run <= 0 || report.trial_seconds <= 0) return "";
  char line[256];
  std::snprintf(line, sizeof line,
                "store overhead: %lld calls, %.1f ms in total, %.3f%% of %.1f s of trials (%lld evals recorded)\n",
                static_cast<long long>(report.store_calls), report.store_seconds * 1e3,
                100.0 * report.store_seconds / report.trial_seconds, report.trial_seconds,
                static_cast<long long>(report.evals_recorded));
  return line;
}

TuneSummary summarize_tune(const StudyStore& store, const std::vector<StudyRecord>& studies, bool json) {
  const std::vector<SweepSummary> sweeps = summarize_studies(store, studies);
  TuneSummary summary;
  if (json) summary.text = sweeps_json_text(sweeps);
  for (const auto& sweep : sweeps) {
    if (!json) summary.text += format_study_details(sweep);
    summary.finished = summary.finished && sweep.finished();
  }
  return summary;
}

}  // namespace pacer
