#include "tune/until_separated.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "core/format.h"
#include "score/store_source.h"
#include "tune/board.h"
#include "tune/board_part.h"

namespace pacer {
namespace {

// The board's external-run trials (rerun 0), named by algorithm.
std::vector<TrialLog> board_first_run(const BoardSources& board) {
  std::vector<TrialLog> out;
  for (const auto& t : board.external) {
    const auto [algorithm, rerun] = board_algorithm_of(t.submission);
    if (rerun != 0) continue;
    TrialLog copy = t;
    copy.submission = algorithm;
    out.push_back(std::move(copy));
  }
  return out;
}

ScoreOptions look_options(const BoardSetup& setup, const std::string& reference) {
  ScoreOptions o;
  o.rules = setup.rules->name;
  o.reference = reference;
  return o;
}

}  // namespace

UntilSeparated until_separated_setup(const BoardSetup& setup, int max_studies) {
  if (!setup.against) throw InputError("--until-separated needs the board to compare with (--against)");
  if (setup.spec.algorithms.size() != 1)
    throw InputError("--until-separated decides one newcomer at a time (this run has " +
                     std::to_string(setup.spec.algorithms.size()) + " algorithms)");
  if (setup.spec.self_tuning || setup.spec.reruns > 0)
    throw InputError("--until-separated runs the external part only, without reruns");
  UntilSeparated u;
  u.plan = sequential_plan(setup.spec.studies, max_studies);
  u.newcomer = setup.names.front();
  const std::string reference = "nadamw";
  const auto& names = setup.against->names;
  if (std::find(names.begin(), names.end(), reference) == names.end())
    throw InputError("--until-separated: the --against board has no '" + reference + "' to compare with");
  u.opponents.push_back(reference);
  // The board's best by the expected pace of its external run, over this run's workloads.
  std::vector<TrialLog> trials;
  const std::set<std::string> workloads(setup.spec.workloads.begin(), setup.spec.workloads.end());
  for (auto& t : board_first_run(*setup.against))
    if (workloads.count(t.workload)) trials.push_back(std::move(t));
  const ScoreResult board = score_trials(trials, names, look_options(setup, ""));
  const auto best = std::min_element(board.submissions.begin(), board.submissions.end(),
                                     [](const SubmissionScore& a, const SubmissionScore& b) { return a.expected_pace < b.expected_pace; });
  if (best != board.submissions.end() && best->name != reference) u.opponents.push_back(best->name);
  u.resamples = std::max(u.resamples, minimum_resamples(u.plan, static_cast<int>(u.opponents.size())));
  return u;
}

BoardSpec look_spec(const BoardSetup& setup, const UntilSeparated& u, size_t look, const std::vector<std::string>& state) {
  BoardSpec spec = setup.spec;
  spec.studies = u.plan.studies[look];
  const int board_studies = u.plan.studies.front();
  for (size_t o = 0; o < u.opponents.size() && spec.studies > board_studies; ++o) {
    if (state[o] != "undecided") continue;
    spec.algorithms.push_back(u.opponents[o]);
    spec.first_study[u.opponents[o]] = board_studies + 1;
  }
  return spec;
}

std::vector<PairVerdict> look_verdicts(const std::string& store, const BoardSetup& setup, const UntilSeparated& u) {
  std::vector<std::string> names = {u.newcomer};
  names.insert(names.end(), u.opponents.begin(), u.opponents.end());
  const std::set<std::string> wanted(names.begin(), names.end());
  const std::set<std::string> workloads(setup.spec.workloads.begin(), setup.spec.workloads.end());
  std::vector<TrialLog> trials;
  auto keep = [&](std::vector<TrialLog> from) {
    for (auto& t : from) {
      const auto [algorithm, rerun] = board_algorithm_of(t.submission);
      if (rerun != 0 || !wanted.count(algorithm) || !workloads.count(t.workload)) continue;
      t.submission = algorithm;
      trials.push_back(std::move(t));
    }
  };
  keep(StoreSource({store}, false).trials());       // the newcomer, and the opponents' studies past the board's
  std::vector<TrialLog> board = board_first_run(*setup.against);
  board.erase(std::remove_if(board.begin(), board.end(), [&](const TrialLog& t) { return t.submission == u.newcomer; }),
              board.end());
  keep(std::move(board));                            // the opponents' studies on the board
  const ScoreResult run = score_trials(trials, names, look_options(setup, u.opponents.front()));
  VerdictOptions v;
  v.resamples = u.resamples;
  v.unpaired_too = false;
  v.p_values = VerdictOptions::PValues::permutation;  // exact at any size (the bootstrap's measured liberal)
  const VerdictTables tables = pair_verdicts(run, v);
  std::vector<PairVerdict> out;
  for (const auto& opponent : u.opponents) {
    for (PairVerdict p : tables.pairs) {
      if (!((p.a == u.newcomer && p.b == opponent) || (p.b == u.newcomer && p.a == opponent))) continue;
      if (p.a != u.newcomer) {  // orient: a = the newcomer
        std::swap(p.a, p.b);
        p.speedup = 1 / p.speedup;
        const double low = 1 / p.high, high = 1 / p.low;
        p.low = low, p.high = high;
        p.probability_of_improvement = 1 - p.probability_of_improvement;
      }
      out.push_back(p);
    }
  }
  return out;
}

UntilSeparatedResult run_until_separated(StudyStore& store, const BoardSetup& setup, const UntilSeparated& u,
                                         const std::function<void(const BoardPlan&)>& run,
                                         const std::function<bool()>& stopped,
                                         const std::function<void(const UntilSeparatedResult&)>& judged) {
  UntilSeparatedResult r;
  r.state.assign(u.opponents.size(), "undecided");
  r.verdicts.resize(u.opponents.size());
  r.studies.assign(u.opponents.size(), 0);
  for (size_t look = 0; look < u.plan.studies.size(); ++look) {
    const BoardSpec spec = look_spec(setup, u, look, r.state);
    const BoardPlan plan = plan_board(store, spec);
    run(plan);
    if (stopped()) break;
    const BoardProgress progress = board_progress(store, plan);
    if (progress.done < progress.total) break;  // a worker failed: this look cannot be judged
    const std::vector<PairVerdict> verdicts = look_verdicts(store.path(), setup, u);
    std::vector<double> p, speedups;
    for (const auto& v : verdicts) p.push_back(v.p_value), speedups.push_back(v.speedup);
    const std::vector<std::string> before = r.state;
    const int undecided = sequential_look(u.plan, look, p, speedups, r.state);
    for (size_t o = 0; o < r.state.size(); ++o) {
      if (before[o] != "undecided") continue;
      r.verdicts[o] = verdicts[o];
      r.verdicts[o].verdict = r.state[o];
      r.studies[o] = u.plan.studies[look];
    }
    r.looks = look + 1;
    if (judged) judged(r);
    if (undecided == 0) break;
  }
  return r;
}

UntilSeparatedResult judge_newcomer(const std::string& store, const BoardSetup& setup, const UntilSeparated& u) {
  UntilSeparatedResult r;
  r.state.assign(u.opponents.size(), "undecided");
  const std::vector<PairVerdict> verdicts = look_verdicts(store, setup, u);
  std::vector<double> p, speedups;
  for (const auto& v : verdicts) p.push_back(v.p_value), speedups.push_back(v.speedup);
  const SequentialPlan once = sequential_plan(u.plan.studies.front(), u.plan.studies.front());
  sequential_look(once, 0, p, speedups, r.state);
  r.verdicts = verdicts;
  for (size_t o = 0; o < r.verdicts.size(); ++o) r.verdicts[o].verdict = r.state[o];
  r.studies.assign(u.opponents.size(), u.plan.studies.front());
  r.looks = 1;
  return r;
}

std::vector<std::string> until_separated_lines(const UntilSeparatedResult& r, const UntilSeparated& u) {
  std::vector<std::string> lines;
  for (size_t o = 0; o < u.opponents.size() && o < r.verdicts.size(); ++o) {
    const PairVerdict& v = r.verdicts[o];
    std::string line = u.newcomer + " against " + u.opponents[o] + ": " + r.state[o];
    if (r.studies[o] == 0) {
      lines.push_back(line + " (no look finished)");
      continue;
    }
    size_t look = 0;
    while (look + 1 < u.plan.studies.size() && u.plan.studies[look] < r.studies[o]) ++look;
    line += ", expected-pace speedup " + format_double("%.3fx", v.speedup) + " (95% " + format_double("%.3f", v.low) + "-" +
            format_double("%.3f", v.high) + "), resolution " + format_double("%.3fx", v.resolution) + ", P(improvement) " +
            format_double("%.0f%%", 100 * v.probability_of_improvement) + ", p " + format_double("%.4f", v.p_value) +
            (r.state[o] == "undecided" ? ", undecided when it stopped at look " : ", at look ") + std::to_string(look + 1) +
            " of " + std::to_string(u.plan.studies.size()) + " (" + std::to_string(r.studies[o]) + " studies; alpha " +
            format_double("%.4f", u.plan.alpha[look]) + ")";
    lines.push_back(line);
  }
  return lines;
}

std::string look_line(const UntilSeparatedResult& r, const UntilSeparated& u) {
  if (r.looks == 0) return "";
  const size_t look = r.looks - 1;
  const int studies = u.plan.studies[look];
  std::string line = "look " + std::to_string(r.looks) + " of " + std::to_string(u.plan.studies.size()) + " (" +
                     std::to_string(studies) + " studies; alpha " + format_double("%.4f", u.plan.alpha[look]) + "): ";
  std::string judged, next;
  for (size_t o = 0; o < u.opponents.size() && o < r.verdicts.size(); ++o) {
    if (r.studies[o] != studies) continue;  // decided at an earlier look
    const PairVerdict& v = r.verdicts[o];
    judged += std::string(judged.empty() ? u.newcomer + " against " : ", against ") + u.opponents[o] + " " +
              r.state[o] + " (" + format_double("%.3fx", v.speedup) + ", 95% " + format_double("%.3f", v.low) + "-" +
              format_double("%.3f", v.high) + ", p " + format_double("%.4f", v.p_value) + ")";
    if (r.state[o] == "undecided") next += " and " + u.opponents[o];
  }
  line += judged;
  if (next.empty()) return line + "; every comparison decided";
  if (r.looks == u.plan.studies.size()) return line + "; the plan's last look";
  return line + "; next: " + std::to_string(u.plan.studies[r.looks]) + " studies of " + u.newcomer + next;
}

}  // namespace pacer
