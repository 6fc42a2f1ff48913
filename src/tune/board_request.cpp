#include "tune/board_request.h"

#include "core/format.h"

#include <algorithm>
#include <cstdio>

#include "catalog/plugin_records.h"
#include "catalog/algorithm_infos.h"
#include "core/error.h"
#include "score/store_source.h"
#include "tune/ruleset.h"
#include "catalog/suites.h"

namespace pacer {
namespace {

void pair_with_board(const BoardRequest& request, BoardSetup& setup);

// The algorithms, parts and workloads: a newcomer ranked against a board runs that board's
// workloads, its external part only, without reruns, unless the request says otherwise.
void choose_what_runs(const BoardRequest& request, BoardSetup& setup) {
  BoardSpec& spec = setup.spec;
  const bool newcomer = !request.against.empty();
  if (newcomer && request.algorithms.empty())
    throw InputError("--against: give the algorithm(s) to rank with -a (a name or a plugin library)");
  spec.algorithms = request.algorithms.empty() ? algorithm_names() : request.algorithms;
  for (auto& name : spec.algorithms) name = algorithm_name_of(name);  // a name, or a file the command loaded
  spec.self_tuning = spec.external = false;
  const std::vector<std::string> rulesets =
      request.rulesets.value_or(newcomer ? std::vector<std::string>{"external"} : std::vector<std::string>{"self", "external"});
  for (const auto& r : rulesets) {
    if (r == "self") spec.self_tuning = true;
    else if (r == "external") spec.external = true;
    else throw InputError("--rulesets: unknown ruleset '" + r + "' (valid: self, external)");
  }
  spec.reruns = spec.external ? request.reruns.value_or(newcomer ? 0 : 1) : 0;
  if (newcomer) {
    setup.against = read_board_sources(request.against);
    setup.against_locations = request.against;
  }
  pair_with_board(request, setup);
  if (!request.workloads.empty()) {
    spec.workloads = request.workloads;
  } else if (setup.against && !request.suite) {
    spec.workloads = setup.against->workloads;
  } else {
    spec.workloads = workload_suite(request.suite.value_or("board"));
  }
}

// A newcomer draws the seeds and points of the board it is ranked against (the board's external
// run: its training seed, its sampler seed, paired or not), so its study j, trial i is paired with
// every board algorithm's. A seed the user gives that differs is used, with a warning that says
// the comparison is then unpaired.
void pair_with_board(const BoardRequest& request, BoardSetup& setup) {
  BoardSpec& spec = setup.spec;
  spec.seed = request.seed;
  spec.sampler_seed = request.sampler_seed;
  spec.paired = request.paired.value_or(false);
  if (!setup.against || !setup.against->pairing) return;
  const BoardSources::Pairing& board = *setup.against->pairing;
  const bool given = request.seed != 0 || request.sampler_seed != 0 || request.paired.has_value();
  if (given && (request.seed != board.seed || request.sampler_seed != board.sampler_seed ||
                request.paired.value_or(board.paired) != board.paired)) {
    std::fprintf(stderr,
                 "pacer: warning: --against: the board's external run drew training seed %llu, sampler seed %llu%s; "
                 "this run draws others, so its trials are not paired with the board's\n",
                 static_cast<unsigned long long>(board.seed), static_cast<unsigned long long>(board.sampler_seed),
                 board.paired ? ", paired points" : "");
    return;
  }
  spec.seed = board.seed;
  spec.sampler_seed = board.sampler_seed;
  spec.paired = board.paired;
}

}  // namespace

BoardSetup make_board_setup(const BoardRequest& request) {
  BoardSetup setup;
  setup.rules = &rules_preset(request.rules.empty() ? default_rules_name() : request.rules);
  choose_what_runs(request, setup);
  BoardSpec& spec = setup.spec;
  // A newcomer runs the studies and trials the board it is ranked against ran (its slots).
  const bool board_counts = setup.against && setup.against->studies > 0 && setup.against->trials > 0;
  spec.studies = request.studies > 0 ? request.studies : board_counts ? setup.against->studies : setup.rules->num_studies;
  spec.trials = request.trials > 0 ? request.trials : board_counts ? setup.against->trials : kDefaultTrialsPerStudy;
  spec.spaces_dir = request.spaces_dir;
  for (const auto& s : request.spaces) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) throw InputError("--space '" + s + "': give ALGORITHM=FILE");
    spec.space_files[algorithm_name_of(s.substr(0, eq))] = s.substr(eq + 1);
  }
  if (!request.name.empty()) {
    if (spec.algorithms.size() != 1)
      throw InputError("--name names one algorithm; this run has " + std::to_string(spec.algorithms.size()));
    spec.names[spec.algorithms.front()] = request.name;
  }
  for (const auto& algorithm : spec.algorithms) setup.names.push_back(spec.name_of(algorithm));
  if (setup.against) {
    // Before any trial: a clash found when the outputs are scored would come after all of them ran.
    const auto& theirs = setup.against->names;
    for (const auto& n : setup.names)
      if (std::find(theirs.begin(), theirs.end(), n) != theirs.end())
        throw InputError("'" + n + "' is on the board given with --against too: give this run's algorithm another "
                         "name (--name)");
    const auto& ran = setup.against->workloads;
    for (const auto& w : spec.workloads)
      if (std::find(ran.begin(), ran.end(), w) == ran.end())
        std::fprintf(stderr, "pacer: warning: the --against board never ran %s: there this run is ranked among its own "
                             "algorithms only\n", w.c_str());
  }
  spec.external_trial = spec.self_trial = request.trial;
  const std::optional<double> given = request.trial.budget_multiplier;
  spec.external_trial.budget_multiplier = given.value_or(default_budget_multiplier(Ruleset::external, *setup.rules));
  spec.self_trial.budget_multiplier = given.value_or(default_budget_multiplier(Ruleset::self, *setup.rules));
  spec.external_trial.validate();
  spec.self_trial.validate();
  validate_board(spec);
  if (setup.against)
    setup.race_bounds = std::make_shared<RaceBounds>(
        board_bounds(*setup.against, setup.rules->name, to_string(spec.external_trial.clock)));
  return setup;
}

std::vector<std::string> named_algorithms(const BoardRequest& request) {
  std::vector<std::string> names = request.algorithms;
  for (const auto& s : request.spaces)
    if (const auto eq = s.find('='); eq != std::string::npos) names.push_back(s.substr(0, eq));
  return names;
}

std::string BoardResults::markdown() const {
  std::string md = board_markdown(parts, progress, &costs);
  if (stability) md += board_stability_markdown(*stability);
  if (verdicts) md += board_verdicts_markdown(*verdicts);
  return md;
}

BoardResults board_results(const StudyStore& store, const BoardPlan& plan, const BoardSetup& setup,
                           int bootstrap_resamples) {
  BoardResults results;
  results.progress = board_progress(store, plan);
  results.parts = score_board(store.path(), plan, setup.names, setup.rules->name, setup.against ? &*setup.against : nullptr);
  // A newcomer's step costs beside the board's: the compared stores' trials too.
  std::vector<std::string> cost_stores = {store.path()}, cost_names = setup.names;
  if (setup.against) {
    for (const auto& location : setup.against_locations)
      if (StoreSource::is_store_file(location)) cost_stores.push_back(location);
    cost_names.insert(cost_names.end(), setup.against->names.begin(), setup.against->names.end());
  }
  results.costs = board_step_costs(cost_stores, cost_names);
  if (bootstrap_resamples > 0) {
    BoardStabilityOptions bootstrap;
    bootstrap.resamples = bootstrap_resamples;
    bootstrap.rules = setup.rules->name;
    results.stability = board_stability(results.parts, bootstrap);
    // The expected pace's verdicts: their resample count is the pre-registered one, not --bootstrap's.
    results.verdicts = board_verdicts(results.parts, BoardVerdictOptions{});
  }
  return results;
}

namespace {

std::string verdict_line(const Verdict& v, const PartStability& part, const std::string& reference) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%s against %s: pace speedup %.3fx (95%% interval %.3f-%.3f, faster in %.0f%% of resamples), AlgoPerf "
                "speedup %.3fx (%.3f-%.3f, %.0f%%); group %d of %d by the pace",
                v.name.c_str(), reference.c_str(), v.pace_speedup, v.pace_low, v.pace_high, 100 * v.pace_p_faster,
                v.speedup, v.speedup_low, v.speedup_high, 100 * v.p_faster, v.group, part.groups);
  return line;
}

}  // namespace

std::vector<std::string> newcomer_rank_lines(const BoardResults& results, const std::vector<std::string>& names) {
  std::vector<std::string> lines;
  for (const auto& p : results.parts) {
    if (!p.seconds) continue;
    std::string workloads;
    for (const auto& w : p.seconds->base_workloads) workloads += " " + w;
    for (const auto& sub : p.seconds->submissions) {
      if (std::find(names.begin(), names.end(), sub.name) == names.end()) continue;
      const size_t n = p.seconds->base_workloads.size();
      std::string line = sub.name + ", " + p.part.name + " (" + std::to_string(n) + (n == 1 ? " workload:" : " workloads:") +
                         workloads + "): rank " + std::to_string(sub.rank) + " of " +
                         std::to_string(p.seconds->submissions.size()) + ", score " + format_double("%.4f", sub.score) +
                         " (seconds, " + p.seconds->clock + " clock), pace " + format_double("%.4f", sub.pace) +
                         " (pace rank " + std::to_string(sub.pace_rank) + ")";
      if (sub.speedup) line += ", " + format_double("%.3f", *sub.speedup) + "x NAdamW's speed";
      if (p.steps) {  // hardware- and language-independent: a Python step costs more than a C++ one
        for (const auto& s : p.steps->submissions) {
          if (s.name != sub.name) continue;
          line += "; by steps: rank " + std::to_string(s.rank);
          if (s.speedup) line += ", " + format_double("%.3f", *s.speedup) + "x";
        }
      }
      lines.push_back(line);
      if (!results.stability) continue;
      for (const auto& part : results.stability->parts) {
        if (part.part != p.part.name) continue;
        for (const auto& v : part.verdicts) {
          if (v.name == sub.name) lines.push_back(verdict_line(v, part, results.stability->options.reference));
        }
      }
    }
  }
  return lines;
}

}  // namespace pacer

namespace pacer {

std::string board_headline(const BoardSetup& setup, const BoardPlan& plan, const BoardProgress& before,
                           const std::string& store_path, int workers) {
  std::string parts;
  for (const auto& p : plan.parts) parts += " " + p.name;
  // A study only grows: an earlier run with more trials per study left them in the store, and the
  // tables score them all, so the header says so rather than the number asked for now.
  int64_t stored = 0;
  for (const auto& phase : plan.phases)
    for (const auto& study : phase.studies)
      if (study.ruleset == "external") stored = std::max(stored, study.planned_trials);
  const std::string trials = stored > setup.spec.trials
                                 ? std::to_string(setup.spec.trials) + " trials asked (external; the store's studies hold " +
                                       std::to_string(stored) + " from an earlier run, and all are scored)"
                                 : std::to_string(setup.spec.trials) + " trials (external)";
  return "pacer board: " + std::to_string(setup.spec.algorithms.size()) + " algorithms x " +
         std::to_string(setup.spec.workloads.size()) + " workloads, parts:" + parts + "; " +
         std::to_string(setup.spec.studies) + " studies x " + trials + "; store " + store_path + ": " + std::to_string(before.done) + " of " +
         std::to_string(before.total) + " trials done; estimated " + format_duration(before.remaining_trial_sec) +
         " of trial time left (" + format_duration(before.remaining_trial_sec / std::max(workers, 1)) + " with " +
         std::to_string(workers) + " workers)";
}

}  // namespace pacer
