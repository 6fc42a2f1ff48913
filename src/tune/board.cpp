#include "tune/board.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "catalog/plugin_records.h"
#include "core/error.h"
#include "tune/search_space.h"
#include "tune/sweep.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

constexpr const char* kRerunTag = "@rerun";

// What evals cost beside the budget, before the store has a measurement: with validation and
// test splits, 15-28% of the submission time on the board's workloads (docs/leaderboard.md).
constexpr double kDefaultEvalShare = 0.3;

std::string space_file_of(const BoardSpec& spec, const std::string& algorithm) {
  if (auto it = spec.space_files.find(algorithm); it != spec.space_files.end()) return it->second;
  if (const LoadedPlugin* plugin = plugin_of(algorithm); plugin && !plugin->search_space.empty()) {
    return plugin->search_space;  // a Python submission's own tuning_search_space.json
  }
  return (std::filesystem::path(spec.spaces_dir) / (algorithm + ".json")).string();
}

}  // namespace

std::string board_experiment(const std::string& algorithm, int rerun) {
  return rerun == 0 ? algorithm : algorithm + kRerunTag + std::to_string(rerun);
}

std::pair<std::string, int> board_algorithm_of(const std::string& experiment) {
  const auto at = experiment.rfind(kRerunTag);
  if (at == std::string::npos) return {experiment, 0};
  const std::string digits = experiment.substr(at + std::string(kRerunTag).size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return {experiment, 0};
  return {experiment.substr(0, at), std::stoi(digits)};
}

std::vector<StudyRecord> BoardPlan::studies() const {
  std::vector<StudyRecord> all;
  for (const auto& phase : phases) all.insert(all.end(), phase.studies.begin(), phase.studies.end());
  return all;
}

std::vector<int64_t> BoardPlan::study_ids() const {
  std::vector<int64_t> ids;
  for (const auto& phase : phases)
    for (const auto& s : phase.studies) ids.push_back(s.id);
  return ids;
}

namespace {

struct BoardSweeps {
  std::vector<BoardPart> parts;
  std::vector<SweepSpec> sweeps;
  std::vector<size_t> part_of;  // per sweep
};

BoardSweeps board_sweeps(const BoardSpec& spec) {
  if (spec.algorithms.empty()) throw InputError("the board has no algorithm");
  if (spec.workloads.empty()) throw InputError("the board has no workload");
  if (!spec.self_tuning && !spec.external) throw InputError("the board has no ruleset (external, self)");
  if (spec.reruns < 0) throw InputError("--reruns must be 0 or more");
  if (spec.reruns > 0 && !spec.external) throw InputError("--reruns repeat the external-tuning part, which is off");
  std::set<std::string> seen;
  for (const auto& a : spec.algorithms)
    if (!seen.insert(spec.name_of(a)).second) throw InputError("algorithm '" + spec.name_of(a) + "' is listed twice");

  BoardSweeps plan;
  if (spec.self_tuning) plan.parts.push_back({"self", Ruleset::self, 0});
  if (spec.external) {
    plan.parts.push_back({"external", Ruleset::external, 0});
    for (int k = 1; k <= spec.reruns; ++k) plan.parts.push_back({"rerun" + std::to_string(k), Ruleset::external, k});
  }

  // Spaces are read once per algorithm; a list of points runs with the list sampler (as the
  // reference runs a submission's published points).
  std::map<std::string, SearchSpace> spaces;
  if (spec.external) {
    for (const auto& a : spec.algorithms) {
      const std::string file = space_file_of(spec, a);
      if (!std::filesystem::exists(file)) {
        throw InputError(file + ": no search space for '" + a + "' (external tuning needs one; give --space " + a +
                         "=FILE, or leave the algorithm out)");
      }
      SearchSpace space = SearchSpace::from_json_file(file);
      for (const auto& w : space.warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
      spaces.emplace(a, std::move(space));
    }
  }

  auto& sweeps = plan.sweeps;
  for (size_t p = 0; p < plan.parts.size(); ++p) {
    const BoardPart& part = plan.parts[p];
    for (const auto& a : spec.algorithms) {
      for (const auto& w : spec.workloads) {
        SweepSpec s;
        s.experiment = board_experiment(spec.name_of(a), part.rerun);
        s.workload = w;
        s.algorithm = a;
        s.ruleset = part.ruleset;
        s.studies = spec.studies;
        if (const auto f = spec.first_study.find(a); f != spec.first_study.end()) s.first_study = f->second;
        s.seed = spec.seed + static_cast<uint64_t>(part.rerun);
        if (part.ruleset == Ruleset::self) {
          s.trials = 1;
          s.trial = spec.self_trial;
        } else {
          const SearchSpace& space = spaces.at(a);
          s.space = space;
          s.space_origin = space_file_of(spec, a);
          s.sampler = space.is_list() ? "list" : spec.paired ? "paired_halton" : "halton";
          s.sampler_options.seed = spec.sampler_seed + static_cast<uint64_t>(part.rerun);
          s.trials = spec.trials;
          s.trial = spec.external_trial;
        }
        validate_sweep(s);
        sweeps.push_back(std::move(s));
        plan.part_of.push_back(p);
      }
    }
  }
  return plan;
}

}  // namespace

void validate_board(const BoardSpec& spec) { board_sweeps(spec); }

namespace {

// The studies of a plan grouped into its phases: study k of every part's algorithm x workload
// before study k + 1. `studies` are in sweep order, each sweep's 1..N (some may be absent).
BoardPlan phases_of(const BoardSpec& spec, const BoardSweeps& sweeps, const std::vector<StudyRecord>& studies) {
  BoardPlan plan;
  plan.parts = sweeps.parts;
  std::map<std::string, size_t> part_of_sweep;  // a study's sweep identity -> its part
  const std::vector<StudyDefinition> definitions = sweep_definitions(sweeps.sweeps);
  size_t next = 0;
  for (size_t i = 0; i < sweeps.sweeps.size(); ++i) {
    for (int k = sweeps.sweeps[i].first_study; k <= sweeps.sweeps[i].studies; ++k)
      part_of_sweep[definitions[next++].sweep] = sweeps.part_of[i];
  }
  std::vector<std::vector<std::vector<StudyRecord>>> by_part(plan.parts.size(),
                                                             std::vector<std::vector<StudyRecord>>(spec.studies));
  for (const StudyRecord& s : studies) {
    const auto part = part_of_sweep.find(s.sweep);
    if (part == part_of_sweep.end() || s.study_index < 1 || s.study_index > spec.studies) {
      throw Error("board plan: the store returned a study outside the plan (" + s.experiment + ")");
    }
    by_part[part->second][static_cast<size_t>(s.study_index - 1)].push_back(s);
  }
  // Study k of every part before study k + 1: the external run and its reruns interleave, so a
  // machine that changes speed between sessions (docs/leaderboard.md, the calibrations) bends
  // every run alike instead of one run more than the other.
  for (int k = 0; k < spec.studies; ++k) {
    for (size_t p = 0; p < plan.parts.size(); ++p) {
      BoardPhase phase;
      phase.label = plan.parts[p].name + ", study " + std::to_string(k + 1) + " of " + std::to_string(spec.studies);
      phase.studies = std::move(by_part[p][static_cast<size_t>(k)]);
      plan.phases.push_back(std::move(phase));
    }
  }
  return plan;
}

}  // namespace

BoardPlan plan_board(StudyStore& store, const BoardSpec& spec) {
  const BoardSweeps sweeps = board_sweeps(spec);
  const std::vector<StudyRecord> studies = plan_sweeps(store, sweeps.sweeps);
  size_t planned = 0;
  for (const auto& s : sweeps.sweeps) planned += static_cast<size_t>(s.studies - s.first_study + 1);
  if (studies.size() != planned) throw Error("board plan: the store returned fewer studies than planned");
  return phases_of(spec, sweeps, studies);
}

BoardPlan find_board(const StudyStore& store, const BoardSpec& spec) {
  const BoardSweeps sweeps = board_sweeps(spec);
  return phases_of(spec, sweeps, find_sweep_studies(store, sweeps.sweeps));
}

double default_trial_cost_sec(const StudyRecord& study) {
  const TrialSpec trial = TrialSpec::from_json(study.trial_spec);
  return trial.resolved_time_budget(workload_spec(study.workload)) * (1.0 + kDefaultEvalShare);
}

BoardProgress board_progress(const StudyStore& store, const BoardPlan& plan) {
  return board_progress(plan.studies(), [&store](const StudyRecord& study) { return store.trials(study.id); });
}

BoardProgress board_progress(const std::vector<StudyRecord>& studies,
                             const std::function<std::vector<TrialRecord>(const StudyRecord&)>& trials_of) {
  BoardProgress p;
  // Measured cost per (workload, ruleset): the finished trials' wall time.
  std::map<std::pair<std::string, std::string>, std::pair<double, int64_t>> measured;
  std::vector<std::pair<const StudyRecord*, int64_t>> waiting;  // (study, trials not done)
  for (const auto& study : studies) {
    int64_t not_done = 0;
    for (const auto& t : trials_of(study)) {
      ++p.total;
      if (t.result) {
        ++p.done;
        if (t.result->status == TrialStatus::stopped) ++p.stopped;
        if (t.result->status == TrialStatus::failed) {
          const std::string& message = t.result->message;
          std::string line = message.substr(0, message.find('\n'));
          if (line.size() > 240) line = line.substr(0, 240) + "...";
          p.failed.push_back(study.name() + " trial " + std::to_string(t.index) + ": " + line);
        }
        auto& m = measured[{study.workload, study.ruleset}];
        m.first += t.result->total_duration;
        ++m.second;
        p.done_trial_sec += t.result->total_duration;
      } else {
        ++not_done;
        if (t.status == StoredTrialStatus::running) ++p.running;
      }
    }
    if (not_done > 0) waiting.emplace_back(&study, not_done);
  }
  for (const auto& [study, n] : waiting) {
    const auto it = measured.find({study->workload, study->ruleset});
    const double each =
        it != measured.end() && it->second.second > 0 ? it->second.first / it->second.second : default_trial_cost_sec(*study);
    p.remaining_trial_sec += each * static_cast<double>(n);
  }
  return p;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<int64_t>(std::llround(seconds));
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof(text), "%lldh%02lldm", static_cast<long long>(s / 3600), static_cast<long long>(s % 3600 / 60));
  } else if (s >= 60) {
    std::snprintf(text, sizeof(text), "%lldm%02llds", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(text, sizeof(text), "%llds", static_cast<long long>(s));
  }
  return text;
}

std::string board_unfinished_line(const BoardProgress& progress, const std::string& why) {
  return "pacer board: " + why + " with " + std::to_string(progress.done) + " of " + std::to_string(progress.total) +
         " trials done (" + format_duration(progress.remaining_trial_sec) +
         " of trial time left); run the same command again to continue";
}

}  // namespace pacer
