#include "score/scoring.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "core/error.h"
#include "score/expected_pace.h"
#include "score/log_checks.h"
#include "score/pace.h"
#include "score/performance_profile.h"
#include "score/speedup.h"

namespace pacer {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The budget that cuts a trial's evals under these rules; 0: none (v0.5, or no known budget).
double scoring_budget(const RulesPreset& rules, const ScoringTarget& target) {
  return rules.evals_past_budget_count || !(target.time_budget > 0) ? 0.0 : target.time_budget;
}

// The trial to plot: the earliest to reach the target, else the one with the best value.
const TrialLog* pick_curve_trial(const std::vector<const TrialLog*>& trials, const std::vector<TrialTime>& times,
                                 const ScoringTarget& target) {
  const TrialLog* best = nullptr;
  double best_time = kInf;
  for (size_t i = 0; i < trials.size(); ++i) {
    if (times[i].reached() && (!best || times[i].time < best_time)) {
      best = trials[i];
      best_time = times[i].time;
    }
  }
  if (best) return best;
  double best_value = target.higher_is_better ? -kInf : kInf;
  for (const TrialLog* t : trials) {
    const auto* values = t->column(target.column());
    if (!t->problem.empty() || !values) continue;
    for (double v : *values) {
      if (std::isnan(v)) continue;
      if (!best || (target.higher_is_better ? v > best_value : v < best_value)) {
        best = t;
        best_value = v;
      }
    }
  }
  return best;
}

std::vector<CurvePoint> curve_of(const TrialLog* trial, const ScoringTarget& target, TimeAxis axis) {
  std::vector<CurvePoint> points;
  if (!trial || !trial->problem.empty()) return points;
  const auto* values = trial->column(target.column());
  const auto* times = trial->column(time_column(axis));
  if (!values || !times) return points;
  for (size_t i = 0; i < values->size(); ++i) {
    if (std::isfinite((*values)[i]) && std::isfinite((*times)[i])) points.push_back({(*times)[i], (*values)[i]});
  }
  return points;
}

// A pace-like score: the geometric mean over the scored workloads of a per-workload cost (a
// workload without logs costs the most), its ranks (equal values share one), and its speedup
// against the reference. The pace and the expected pace differ only in the cost they read.
struct PaceLikeScore {
  std::optional<double> WorkloadScore::*cost;
  double SubmissionScore::*score;
  int SubmissionScore::*rank;
  std::optional<double> SubmissionScore::*speedup;
};

void add_pace_like(ScoreResult& result, std::map<std::string, size_t>& column, const std::string& reference,
                   const PaceLikeScore& m) {
  for (auto& sub : result.submissions) {
    std::vector<double> costs;
    for (const auto& base : result.base_workloads) {
      const auto& cost = sub.workloads[column[base]].*m.cost;
      costs.push_back(cost ? *cost : 1.0 + kPaceMaxGap);
    }
    sub.*m.score = costs.empty() ? 1.0 + kPaceMaxGap : geometric_mean(costs);
  }
  std::vector<double> values;
  for (const auto& sub : result.submissions) values.push_back(sub.*m.score);
  for (auto& sub : result.submissions) {
    sub.*m.rank = 1 + static_cast<int>(std::count_if(values.begin(), values.end(), [&](double p) { return p < sub.*m.score; }));
  }
  if (reference.empty()) return;
  for (const auto& ref : result.submissions) {
    if (ref.name != reference) continue;
    for (auto& sub : result.submissions) sub.*m.speedup = ref.*m.score / sub.*m.score;
  }
}

// On the cpu clock, N threads advance it about N times as fast: runs with different counts are
// ranked, but not without a word (on the wall clock the threads are the hardware's to choose).
std::optional<std::string> mixed_thread_counts(const std::vector<TrialLog>& trials) {
  std::map<int, std::set<std::string>> by_threads;  // recorded counts only
  for (const auto& t : trials) {
    if (t.threads > 0) by_threads[t.threads].insert(t.submission);
  }
  if (by_threads.size() < 2) return std::nullopt;
  std::string which;
  for (const auto& [threads, names] : by_threads) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    which += (which.empty() ? "" : "; ") + std::to_string(threads) + (threads == 1 ? " thread: " : " threads: ") + list;
  }
  return "these cpu-clock runs used different intra-op thread counts (" + which +
         "): N threads advance the cpu clock about N times as fast, so their times are not comparable; re-run them "
         "with one --threads";
}

}  // namespace

int SubmissionScore::reached() const {
  int n = 0;
  for (const auto& w : workloads) n += (w.time && std::isfinite(*w.time)) ? 1 : 0;
  return n;
}

ScoreResult score_submissions(const ResultSource& source, const ScoreOptions& options) {
  return score_trials(source.trials(), source.submissions(), options);
}

namespace {

// Logs of workloads these rules do not score are skipped, as the reference scorer skips them
// (in the published v0.5 tree: variants not drawn as held-out workloads), and so are logs of an
// unknown workload whose name extends a known base workload's ("ogbg_newvariant").
std::vector<TrialLog> keep_scored_workloads(const std::vector<TrialLog>& all_trials, const TargetTable& table,
                                            ScoreResult& result) {
  std::map<std::string, std::pair<size_t, std::string>> skipped;
  std::vector<TrialLog> trials = all_trials;
  trials.erase(std::remove_if(trials.begin(), trials.end(),
                              [&](const TrialLog& t) {
                                auto skip = [&](const std::string& reason) {
                                  auto& entry = skipped[t.workload];
                                  ++entry.first;
                                  entry.second = reason;
                                  return true;
                                };
                                if (const ScoringTarget* known = table.find(t.workload)) {
                                  return known->out_of_rules.empty() ? false : skip(known->out_of_rules);
                                }
                                const size_t cut = t.workload.find('_');
                                for (size_t at = cut; at != std::string::npos; at = t.workload.find('_', at + 1)) {
                                  if (table.find(t.workload.substr(0, at))) {
                                    return skip("a variant without a target under these rules");
                                  }
                                }
                                return false;
                              }),
               trials.end());
  for (const auto& [name, entry] : skipped) {
    result.warnings.push_back(std::to_string(entry.first) + " trial logs of '" + name + "' skipped: " + entry.second +
                              " (the reference scorer skips them too)");
  }
  return trials;
}

// Impossible times make a trial malformed (refused, or not reaching under --lenient); ambiguous
// rows are scored as AlgoPerf does, with one warning per submission naming its first such log.
void check_times(std::vector<TrialLog>& trials, ScoreResult& result) {
  std::map<std::string, std::pair<int, std::string>> ambiguous;  // submission -> (logs, first warning)
  for (auto& t : trials) {
    if (auto warning = check_log_times(t)) {
      auto& entry = ambiguous[t.submission];
      if (entry.first++ == 0) entry.second = *warning;
    }
  }
  for (const auto& [name, entry] : ambiguous) {
    result.warnings.push_back(entry.second + (entry.first > 1 ? " (and " + std::to_string(entry.first - 1) +
                                                                    " more trial logs of '" + name + "')"
                                                              : ""));
  }
}

// One clock for every trial: a second of CPU time and a second of wall time are not the same
// measure (with several threads, or under load, they differ by factors).
void require_one_clock(const std::vector<TrialLog>& trials, ScoreResult& result) {
  std::map<std::string, const TrialLog*> clocks;
  for (const auto& t : trials) clocks.emplace(t.clock, &t);
  if (clocks.size() > 1) {
    std::string which;
    for (const auto& [clock, t] : clocks) which += (which.empty() ? "" : "; ") + clock + " clock: " + t->source;
    throw InputError("these runs were timed by different clocks, which cannot be ranked together (" + which +
                     "); score each clock's runs separately, or re-run them with one --clock");
  }
  if (!clocks.empty()) result.clock = clocks.begin()->first;
  if (result.clock == "cpu") {
    if (auto warning = mixed_thread_counts(trials)) result.warnings.push_back(*warning);
  }
}

// Columns: every workload seen, plus (held-out rules) the base of every variant seen; their
// targets into result.workloads. Returns each workload's column.
std::map<std::string, size_t> lay_out_columns(const std::vector<TrialLog>& trials, const TargetTable& table,
                                              const ScoreOptions& options, ScoreResult& result) {
  std::set<std::string> names;
  for (const auto& t : trials) names.insert(t.workload);
  for (const auto& name : std::set<std::string>(names)) {
    const ScoringTarget& target = table.at(name);  // unknown workload: InputError suggesting --targets
    if (result.rules.held_out_variants && !target.base_workload.empty()) names.insert(target.base_workload);
  }
  std::map<std::string, size_t> column;
  for (const auto& name : names) {
    ScoringTarget target;
    if (const ScoringTarget* t = table.find(name)) target = *t;
    else target.workload = name;  // a base only referenced by a variant, with no target of its own
    if (options.self_tuning) target.time_budget *= result.rules.self_tuning_multiplier;
    column[name] = result.workloads.size();
    result.workloads.push_back(target);
  }
  return column;
}

// Per column, the most steps any trial logged (the pace's and the speedup's budget in steps).
std::vector<double> most_steps(const std::vector<TrialLog>& trials, std::map<std::string, size_t>& column,
                               size_t columns) {
  std::vector<double> max_step(columns, 0.0);
  for (const auto& t : trials) {
    if (const auto* steps = t.column("global_step")) {
      for (double s : *steps) {
        if (std::isfinite(s)) max_step[column[t.workload]] = std::max(max_step[column[t.workload]], s);
      }
    }
  }
  return max_step;
}

using StudyTrials = std::map<int, std::vector<const TrialLog*>>;  // study -> its trials

// One submission's score on one workload: each study's time to target and pace cost, their
// medians, the curve to plot, and a warning when the rules expect another number of studies.
WorkloadScore score_workload(const std::string& name, const ScoringTarget& target, const StudyTrials& studies,
                             const ScoreOptions& options, double pace_budget, ScoreResult& result) {
  WorkloadScore ws;
  ws.workload = target.workload;
  std::vector<const TrialLog*> all;
  std::vector<TrialTime> all_times;
  const double width = pace_width(target);
  for (const auto& [study, study_trials] : studies) {
    std::vector<TrialTime> times;
    double study_cost = kInf;
    for (const TrialLog* t : study_trials) {
      TrialTime tt;
      try {
        tt = trial_time_to_target(*t, target, options.time_axis, scoring_budget(result.rules, target));
      } catch (const InputError& e) {
        if (!options.lenient) throw;
        tt = TrialTime{};  // explicit: not reached
        result.warnings.push_back(std::string(e.what()) + " (--lenient: counted as not reaching the target)");
      }
      times.push_back(tt);
      const double cost = trial_pace_cost(*t, target, options.time_axis, pace_budget, width);
      study_cost = std::min(study_cost, cost);
      ws.trial_costs.push_back({study, t->trial, cost});
      ws.best_of_k = std::max(ws.best_of_k, static_cast<int>(study_trials.size()));
      if (t->stopped_early) ++result.stopped_early_trials;
    }
    ws.studies.push_back(study);
    ws.study_times.push_back(study_time_to_target(study_trials, times).time.time);
    ws.study_pace_costs.push_back(study_cost);
    ws.trials += static_cast<int>(study_trials.size());
    all.insert(all.end(), study_trials.begin(), study_trials.end());
    all_times.insert(all_times.end(), times.begin(), times.end());
  }
  ws.time = median_time(ws.study_times);
  ws.pace_cost = median_time(ws.study_pace_costs);
  std::vector<double> costs;
  for (const auto& c : ws.trial_costs) costs.push_back(c.cost);
  ws.expected_pace_cost = expected_best_of_k(costs, ws.best_of_k);
  const TrialLog* plotted = pick_curve_trial(all, all_times, target);
  if (plotted) ws.curve_source = plotted->source;
  ws.curve = curve_of(plotted, target, options.time_axis);
  if (static_cast<int>(ws.studies.size()) != result.rules.num_studies) {
    result.warnings.push_back(name + "/" + target.workload + ": " + std::to_string(ws.studies.size()) + " stud" +
                              (ws.studies.size() == 1 ? "y" : "ies") + ", rules " + result.rules.name + " expect " +
                              std::to_string(result.rules.num_studies) + " (median over those found)");
  }
  return ws;
}

// The performance profiles' verdicts into each submission's score and workload cells.
void apply_profile(const ProfileResult& profile, ScoreResult& result) {
  result.base_workloads = profile.base_workloads;
  result.tau = profile.tau;
  for (size_t s = 0; s < result.submissions.size(); ++s) {
    SubmissionScore& sub = result.submissions[s];
    sub.score = profile.score[s];
    sub.rho = profile.rho[s];
    for (size_t w = 0; w < result.workloads.size(); ++w) {
      WorkloadScore& ws = sub.workloads[w];
      ws.reason = profile.reason[s][w];
      auto b = std::find(profile.base_workloads.begin(), profile.base_workloads.end(), ws.workload);
      if (b != profile.base_workloads.end()) {
        const size_t i = b - profile.base_workloads.begin();
        ws.scored_time = profile.scored[s][i];
        ws.ratio = profile.ratio[s][i];
      } else if (ws.reason.empty() && ws.time) {
        ws.scored_time = *ws.time;  // a held-out variant that passed its checks
      }
    }
  }
}

// Geometric-mean speedup over the scored workloads, raw times (before the cut-offs).
void add_speedups(const std::vector<std::string>& submissions, const ScoreOptions& options,
                  std::map<std::string, size_t>& column, const std::vector<double>& max_step, ScoreResult& result) {
  const size_t ref = std::find(submissions.begin(), submissions.end(), options.reference) - submissions.begin();
  std::vector<double> budgets, ref_times;
  std::vector<size_t> cols;
  for (const auto& base : result.base_workloads) {
    const size_t c = column[base];
    // A workload with no known budget (a reference targets file's new entry) cannot cap "never".
    if (options.time_axis != TimeAxis::steps && !(result.workloads[c].time_budget > 0)) continue;
    cols.push_back(c);
    // In steps, the "budget" is the most steps any trial of the workload logged.
    budgets.push_back(options.time_axis == TimeAxis::steps ? max_step[c] : result.workloads[c].time_budget);
    const auto& t = result.submissions[ref].workloads[c].time;
    ref_times.push_back(t ? *t : kInf);
  }
  for (auto& sub : result.submissions) {
    std::vector<double> times;
    for (size_t c : cols) times.push_back(sub.workloads[c].time ? *sub.workloads[c].time : kInf);
    sub.speedup = geometric_mean_speedup(ref_times, times, budgets);
  }
}

// Best score first; equal scores share a rank.
void rank_by_score(ScoreResult& result) {
  std::stable_sort(result.submissions.begin(), result.submissions.end(),
                   [](const SubmissionScore& a, const SubmissionScore& b) { return a.score > b.score; });
  for (size_t i = 0; i < result.submissions.size(); ++i) {
    const bool tie = i > 0 && result.submissions[i].score == result.submissions[i - 1].score;
    result.submissions[i].rank = tie ? result.submissions[i - 1].rank : static_cast<int>(i) + 1;
  }
}

}  // namespace

ScoreResult score_trials(const std::vector<TrialLog>& all_trials, const std::vector<std::string>& submissions,
                         const ScoreOptions& options) {
  ScoreResult result;
  result.rules = rules_preset(options.rules);
  result.time_axis = options.time_axis;
  result.self_tuning = options.self_tuning;
  result.reference = options.reference;
  if (!options.reference.empty() &&
      std::find(submissions.begin(), submissions.end(), options.reference) == submissions.end()) {
    throw InputError("--reference '" + options.reference + "' is not one of the submissions");
  }
  TargetTable table = TargetTable::builtin(result.rules);
  if (!options.targets_file.empty()) table.override_from_file(options.targets_file);
  for (const auto& w : table.warnings()) result.warnings.push_back(w);

  std::vector<TrialLog> trials = keep_scored_workloads(all_trials, table, result);
  check_times(trials, result);
  require_one_clock(trials, result);
  std::map<std::string, size_t> column = lay_out_columns(trials, table, options, result);

  // Group trials: submission -> workload -> study -> trials.
  std::map<std::string, std::map<std::string, StudyTrials>> groups;
  for (const auto& t : trials) {
    if (std::find(submissions.begin(), submissions.end(), t.submission) == submissions.end()) {
      throw Error("trial from an unlisted submission '" + t.submission + "'");
    }
    groups[t.submission][t.workload][t.study].push_back(&t);
  }

  ProfileInput input;
  input.submissions = submissions;
  for (const auto& w : result.workloads) {
    input.workloads.push_back(w.workload);
    if (!w.base_workload.empty()) input.base_of[w.workload] = w.base_workload;
  }
  input.held_out_variants = result.rules.held_out_variants;
  const std::vector<double> max_step = most_steps(trials, column, result.workloads.size());
  // The pace's budget per column: seconds, or in steps the most steps any trial logged.
  for (size_t c = 0; c < result.workloads.size(); ++c) {
    result.pace_budgets.push_back(options.time_axis == TimeAxis::steps ? max_step[c] : result.workloads[c].time_budget);
  }

  for (const auto& name : submissions) {
    SubmissionScore sub;
    sub.name = name;
    std::vector<std::optional<double>> row(result.workloads.size());
    for (const auto& target : result.workloads) {
      auto wit = groups[name].find(target.workload);
      WorkloadScore ws;
      ws.workload = target.workload;
      if (wit != groups[name].end()) {
        ws = score_workload(name, target, wit->second, options, result.pace_budgets[column[target.workload]], result);
      }
      row[column[target.workload]] = ws.time;
      sub.workloads.push_back(ws);
    }
    input.times.push_back(row);
    result.submissions.push_back(sub);
  }

  apply_profile(compute_performance_profiles(input), result);
  if (!options.reference.empty()) add_speedups(submissions, options, column, max_step, result);
  add_pace_like(result, column, options.reference,
                {&WorkloadScore::pace_cost, &SubmissionScore::pace, &SubmissionScore::pace_rank, &SubmissionScore::pace_speedup});
  add_pace_like(result, column, options.reference,
                {&WorkloadScore::expected_pace_cost, &SubmissionScore::expected_pace, &SubmissionScore::expected_pace_rank,
                 &SubmissionScore::expected_pace_speedup});
  if (result.stopped_early_trials > 0) {
    result.warnings.push_back(std::to_string(result.stopped_early_trials) +
                              " trials were stopped by racing: their pace costs are upper bounds, which biases the "
                              "expected pace (an all-trials score) against the algorithms raced most; a board for it "
                              "runs with --no-race");
  }
  rank_by_score(result);
  return result;
}

}  // namespace pacer
