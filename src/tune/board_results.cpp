#include "tune/board_results.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "core/format.h"
#include "score/score_outputs.h"
#include "score/log_tree_source.h"
#include "score/store_source.h"

namespace pacer {
namespace {

// The part's trials, renamed to their algorithm; only the board's own algorithms.
std::vector<TrialLog> part_trials(const std::vector<TrialLog>& all, const BoardPart& part,
                                  const std::vector<std::string>& algorithms) {
  std::vector<TrialLog> out;
  for (const auto& t : all) {
    const auto [algorithm, rerun] = board_algorithm_of(t.submission);
    if (rerun != part.rerun) continue;
    if (std::find(algorithms.begin(), algorithms.end(), algorithm) == algorithms.end()) continue;
    TrialLog copy = t;
    copy.submission = algorithm;
    out.push_back(std::move(copy));
  }
  return out;
}

std::string time_cell(const WorkloadScore& w, TimeAxis axis) {
  if (!w.time) return "-";
  if (!std::isfinite(*w.time)) return "inf";
  return axis == TimeAxis::seconds ? format_double("%.3g", *w.time) : format_double("%.0f", *w.time);
}

}  // namespace

namespace {

// The seeds and sampler of the stores' first external run (experiments without "@rerun"), when
// every such study agrees; a list space's studies (Shampoo's points) say nothing of the sampler.
std::optional<BoardSources::Pairing> external_pairing(const std::vector<std::string>& stores) {
  std::optional<BoardSources::Pairing> found;
  bool agree = true, any_sampled = false;
  for (const auto& path : stores) {
    const StudyStore store(path, StudyStoreOptions::reading());
    for (const auto& study : store.studies()) {
      if (study.ruleset != "external" || board_algorithm_of(study.experiment).second != 0) continue;
      const auto id = nlohmann::json::parse(study.sweep, nullptr, false);
      if (!id.is_object() || !id.contains("seed") || !id["seed"].is_number_unsigned()) return std::nullopt;
      BoardSources::Pairing p;
      p.seed = id["seed"].get<uint64_t>();
      const bool sampled = study.sampler != "list";
      p.sampler_seed = study.sampler_seed;
      p.paired = study.sampler == "paired_halton";
      if (!found) found = p;
      if (found->seed != p.seed) agree = false;
      if (sampled) {
        if (any_sampled && (found->sampler_seed != p.sampler_seed || found->paired != p.paired)) agree = false;
        if (!any_sampled) found->sampler_seed = p.sampler_seed, found->paired = p.paired;
        any_sampled = true;
      }
    }
  }
  return agree ? found : std::nullopt;
}

}  // namespace

BoardSources read_board_sources(const std::vector<std::string>& locations) {
  BoardSources board;
  auto add_names = [&board](const std::vector<TrialLog>& trials) {
    for (const auto& t : trials) {
      const std::string name = board_algorithm_of(t.submission).first;
      if (std::find(board.names.begin(), board.names.end(), name) == board.names.end()) board.names.push_back(name);
      if (std::find(board.workloads.begin(), board.workloads.end(), t.workload) == board.workloads.end()) {
        board.workloads.push_back(t.workload);
      }
    }
  };
  std::vector<std::string> folders, stores;
  for (const auto& l : locations) (StoreSource::is_store_file(l) ? stores : folders).push_back(l);
  if (!stores.empty()) {
    StoreSource external(stores, false), self(stores, true);
    board.external = external.trials();
    board.self = self.trials();
    board.pairing = external_pairing(stores);
  }
  if (!folders.empty()) {
    LogTreeSource logs(folders);
    auto trials = logs.trials();
    for (const auto& w : logs.warnings()) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
    board.external.insert(board.external.end(), trials.begin(), trials.end());
  }
  add_names(board.external);
  add_names(board.self);
  // Counted, not read off the indices (a store's are 1-based, AlgoPerf's folders 0-based).
  std::map<std::pair<std::string, std::string>, std::map<int, int64_t>> cells;  // (algorithm, workload) -> study -> trials
  for (const auto& t : board.external)
    if (board_algorithm_of(t.submission).second == 0) ++cells[{t.submission, t.workload}][t.study];
  for (const auto& [cell, studies] : cells) {
    board.studies = std::max(board.studies, static_cast<int>(studies.size()));
    for (const auto& [study, trials] : studies) board.trials = std::max(board.trials, trials);
  }
  if (board.names.empty()) throw InputError("--against: no finished trial in " + locations.front());
  return board;
}

RaceBounds board_bounds(const BoardSources& board, const std::string& rules, const std::string& clock) {
  RaceBounds bounds;
  const BoardPart first_external{"external", Ruleset::external, 0}, self{"self", Ruleset::self, 0};
  for (const BoardPart& part : {first_external, self}) {
    const auto trials = part_trials(part.ruleset == Ruleset::self ? board.self : board.external, part, board.names);
    if (trials.empty()) continue;
    ScoreOptions options;
    options.rules = rules;
    options.self_tuning = part.ruleset == Ruleset::self;
    std::map<std::string, FastestTimes> fastest;
    for (TimeAxis axis : {TimeAxis::seconds, TimeAxis::steps}) {
      options.time_axis = axis;
      const ScoreResult r = score_trials(trials, board.names, options);
      if (r.clock != clock) {
        throw InputError("--against: the board's times were measured by the " + r.clock + " clock, this run's by the " +
                         clock + " clock; give --clock " + r.clock + " or compare with a board of the same clock");
      }
      for (const auto& sub : r.submissions) {
        for (const auto& w : sub.workloads) {
          if (!w.time || w.study_times.size() % 2 == 0) continue;  // an even median is not bounded by one study
          auto& f = fastest[w.workload];
          (axis == TimeAxis::seconds ? f.seconds : f.steps) =
              std::min(axis == TimeAxis::seconds ? f.seconds : f.steps, *w.time);
        }
      }
    }
    for (const auto& [workload, f] : fastest) bounds.add_fixed(workload, to_string(part.ruleset), f);
  }
  return bounds;
}

std::vector<BoardPartScores> score_board(const std::string& store_location, const BoardPlan& plan,
                                         const std::vector<std::string>& names, const std::string& rules,
                                         const BoardSources* against, const std::string& reference) {
  std::optional<std::vector<TrialLog>> external, self;
  StudyStore store(store_location, StudyStoreOptions::reading());
  std::vector<std::string> everyone = names;
  if (against) {
    for (const auto& n : against->names) {
      if (std::find(names.begin(), names.end(), n) != names.end()) {
        throw InputError("'" + n + "' is on the board given with --against too: give this run's algorithm another "
                         "name (--name)");
      }
      everyone.push_back(n);
    }
  }
  std::vector<BoardPartScores> parts;
  for (const BoardPart& part : plan.parts) {
    BoardPartScores scores;
    scores.part = part;
    for (const auto& phase : plan.phases) {
      for (const auto& study : phase.studies) {
        if (board_algorithm_of(study.experiment).second != part.rerun || study.ruleset != to_string(part.ruleset)) continue;
        for (const auto& t : store.trials(study.id)) {
          ++scores.trials_total;
          if (is_terminal(t.status)) ++scores.trials_done;
        }
      }
    }
    const bool self_tuning = part.ruleset == Ruleset::self;
    auto& cache = self_tuning ? self : external;
    if (!cache) cache = StoreSource({store_location}, self_tuning).trials();
    std::vector<TrialLog> trials = part_trials(*cache, part, names);
    if (against) {
      // Everyone over the same workloads: the compared board's trials on this run's workloads only
      // (a newcomer run with -w on two workloads is not scored against others' five).
      std::set<std::string> workloads;
      for (const auto& phase : plan.phases)
        for (const auto& study : phase.studies) workloads.insert(study.workload);
      for (const auto& t : part_trials(self_tuning ? against->self : against->external, part, against->names)) {
        if (workloads.count(t.workload)) trials.push_back(t);
      }
    }
    if (!trials.empty()) {
      ScoreOptions options;
      options.rules = rules;
      options.self_tuning = self_tuning;
      if (std::find(everyone.begin(), everyone.end(), reference) != everyone.end()) options.reference = reference;
      options.time_axis = TimeAxis::seconds;
      scores.seconds = score_trials(trials, everyone, options);
      options.time_axis = TimeAxis::steps;
      scores.steps = score_trials(trials, everyone, options);
    }
    scores.trials = std::move(trials);
    scores.names = everyone;
    parts.push_back(std::move(scores));
  }
  return parts;
}

std::optional<double> BoardStepCosts::ratio(const std::string& algorithm, const std::string& workload) const {
  const auto mine = cost.find(algorithm), theirs = cost.find(reference);
  if (mine == cost.end() || theirs == cost.end()) return std::nullopt;
  const auto a = mine->second.find(workload), b = theirs->second.find(workload);
  if (a == mine->second.end() || b == theirs->second.end() || b->second.seconds_per_step <= 0) return std::nullopt;
  return a->second.seconds_per_step / b->second.seconds_per_step;
}

std::optional<double> BoardStepCosts::mean_ratio(const std::string& algorithm) const {
  double log_sum = 0;
  int n = 0;
  for (const auto& w : workloads) {
    if (const auto r = ratio(algorithm, w); r && *r > 0) {
      log_sum += std::log(*r);
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / n);
}

BoardStepCosts board_step_costs(const std::vector<std::string>& stores, const std::vector<std::string>& names,
                                const std::string& reference) {
  BoardStepCosts costs;
  costs.reference = reference;
  std::map<std::string, std::map<std::string, std::vector<double>>> samples;
  for (const bool self_tuning : {false, true}) {
    for (const auto& t : StoreSource(stores, self_tuning).trials()) {
      const std::string algorithm = board_algorithm_of(t.submission).first;
      if (std::find(names.begin(), names.end(), algorithm) == names.end() && algorithm != reference) continue;
      const auto* steps = t.column("global_step");
      const auto* seconds = t.column("accumulated_submission_time");
      if (!steps || !seconds || steps->size() < 2 || seconds->size() != steps->size()) continue;
      const double step_span = steps->back() - steps->front(), time_span = seconds->back() - seconds->front();
      if (!(step_span > 0) || !(time_span > 0)) continue;
      samples[algorithm][t.workload].push_back(time_span / step_span);
      if (costs.clock.empty()) costs.clock = t.clock;
      if (costs.clock != t.clock) costs.clock = "mixed";
      if (std::find(costs.workloads.begin(), costs.workloads.end(), t.workload) == costs.workloads.end()) {
        costs.workloads.push_back(t.workload);
      }
    }
  }
  for (const auto& name : names) {
    if (samples.count(name)) costs.algorithms.push_back(name);
  }
  for (auto& [algorithm, by_workload] : samples) {
    for (auto& [workload, values] : by_workload) {
      std::sort(values.begin(), values.end());
      const size_t n = values.size();
      const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
      costs.cost[algorithm][workload] = StepCost{median, static_cast<int>(n)};
    }
  }
  return costs;
}

std::string step_costs_csv(const BoardStepCosts& costs) {
  std::ostringstream out;
  out << "algorithm,workload,seconds_per_step,trials,ratio_to_" << costs.reference << "\n";
  for (const auto& a : costs.algorithms) {
    for (const auto& w : costs.workloads) {
      const auto it = costs.cost.at(a).find(w);
      if (it == costs.cost.at(a).end()) continue;
      const auto r = costs.ratio(a, w);
      out << a << "," << w << "," << format_double("%.6g", it->second.seconds_per_step) << "," << it->second.trials << ","
          << (r ? format_double("%.4f", *r) : "") << "\n";
    }
  }
  return out.str();
}

std::string board_markdown(const std::vector<BoardPartScores>& parts, const BoardProgress& progress,
                           const BoardStepCosts* costs) {
  std::ostringstream out;
  out << "Trials done: " << progress.done << " of " << progress.total;
  if (progress.stopped > 0) out << " (" << progress.stopped << " stopped by racing)";
  out << "; measured trial time " << format_duration(progress.done_trial_sec) << ", estimated remaining "
      << format_duration(progress.remaining_trial_sec) << " of trial time.\n\n";
  if (!progress.failed.empty()) {
    out << "Failed trials (" << progress.failed.size() << "; scored as not reaching the targets):\n\n";
    for (const auto& line : progress.failed) out << "- " << line << "\n";
    out << "\n";
  }
  for (const auto& p : parts) {
    out << "### " << p.part.name << " (" << (p.part.ruleset == Ruleset::self ? "self-tuning" : "external tuning")
        << "; " << p.trials_done << " of " << p.trials_total << " trials done)\n\n";
    if (!p.seconds || !p.steps) {
      out << "No finished trial yet.\n\n";
      continue;
    }
    const ScoreResult& s = *p.seconds;
    const ScoreResult& n = *p.steps;
    out << "Scores by seconds (" << s.clock << " clock) and by steps; per workload, the median over studies of the "
        << "time to target in seconds (inf: the median study did not reach it).";
    if (!s.reference.empty()) out << " Speedup: the geometric mean over workloads of " << s.reference << "'s time / the algorithm's.";
    out << "\n\n| rank | algorithm | score (seconds) | score (steps) | rank (steps) |";
    if (!s.reference.empty()) out << " speedup vs " << s.reference << " |";
    for (const auto& w : s.base_workloads) out << " " << w << " |";
    out << "\n| --- | --- | --- | --- | --- |";
    if (!s.reference.empty()) out << " --- |";
    for (size_t i = 0; i < s.base_workloads.size(); ++i) out << " --- |";
    out << "\n";
    for (const auto& sub : s.submissions) {
      const auto by_steps = std::find_if(n.submissions.begin(), n.submissions.end(),
                                         [&](const SubmissionScore& x) { return x.name == sub.name; });
      out << "| " << sub.rank << " | " << markdown_cell(sub.name) << " | " << format_double("%.4f", sub.score) << " | "
          << (by_steps != n.submissions.end() ? format_double("%.4f", by_steps->score) : "-") << " | "
          << (by_steps != n.submissions.end() ? std::to_string(by_steps->rank) : "-") << " |";
      if (!s.reference.empty()) out << " " << (sub.speedup ? format_double("%.3f", *sub.speedup) : "-") << " |";
      for (const auto& w : s.base_workloads) {
        const auto ws = std::find_if(sub.workloads.begin(), sub.workloads.end(),
                                     [&](const WorkloadScore& x) { return x.workload == w; });
        out << " " << (ws != sub.workloads.end() ? time_cell(*ws, TimeAxis::seconds) : "-") << " |";
      }
      out << "\n";
    }
    out << "\n";
  }
  if (costs && !costs->algorithms.empty()) {
    out << "### Step cost relative to " << costs->reference << "\n\n"
        << "Per workload, the submission seconds (" << costs->clock << " clock) of one training step over "
        << costs->reference << "'s, each the median over the board's trials (time between a trial's first and last "
        << "eval over the steps between them); the last column is the geometric mean over workloads. "
        << costs->reference << "'s own step in milliseconds is in its row.\n\n| algorithm | mean |";
    for (const auto& w : costs->workloads) out << " " << w << " |";
    out << "\n| --- | --- |";
    for (size_t i = 0; i < costs->workloads.size(); ++i) out << " --- |";
    out << "\n";
    for (const auto& a : costs->algorithms) {
      const auto mean = costs->mean_ratio(a);
      out << "| " << markdown_cell(a) << " | " << (mean ? format_double("%.2f", *mean) : "-") << " |";
      for (const auto& w : costs->workloads) {
        const auto& by_workload = costs->cost.at(a);
        const auto it = by_workload.find(w);
        if (it == by_workload.end()) {
          out << " - |";
        } else if (a == costs->reference) {
          out << " " << format_double("%.3g", 1000 * it->second.seconds_per_step) << " ms |";
        } else {
          const auto r = costs->ratio(a, w);
          out << " " << (r ? format_double("%.2f", *r) : "-") << " |";
        }
      }
      out << "\n";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace pacer
