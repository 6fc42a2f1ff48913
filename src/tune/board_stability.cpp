#include "tune/board_stability.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>

#include "core/format.h"
#include "score/rank_statistics.h"

namespace pacer {
namespace {

// A part's trials grouped for resampling: (submission, workload) -> its studies' trials.
using StudyGroups = std::map<std::pair<std::string, std::string>, std::vector<std::vector<const TrialLog*>>>;

StudyGroups group_studies(const std::vector<TrialLog>& trials) {
  std::map<std::pair<std::string, std::string>, std::map<int, std::vector<const TrialLog*>>> by_study;
  for (const auto& t : trials) by_study[{t.submission, t.workload}][t.study].push_back(&t);
  StudyGroups groups;
  for (auto& [key, studies] : by_study) {
    for (auto& [index, members] : studies) groups[key].push_back(std::move(members));
  }
  return groups;
}

// One bootstrap replicate: per algorithm x workload, as many studies as it has, drawn with
// replacement and numbered 1..n again.
std::vector<TrialLog> resample(const StudyGroups& groups, std::mt19937_64& rng) {
  std::vector<TrialLog> out;
  for (const auto& [key, studies] : groups) {
    std::uniform_int_distribution<size_t> pick(0, studies.size() - 1);
    for (size_t k = 0; k < studies.size(); ++k) {
      for (const TrialLog* t : studies[pick(rng)]) {
        out.push_back(*t);
        out.back().study = static_cast<int>(k + 1);
      }
    }
  }
  return out;
}

// The central `level` interval of `values` (NaNs left out): linear interpolation between order
// statistics, as numpy.percentile.
std::pair<double, double> interval(std::vector<double> values, double level) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
  if (values.empty()) return {NAN, NAN};
  std::sort(values.begin(), values.end());
  auto at = [&values](double q) {
    const double position = q * static_cast<double>(values.size() - 1);
    const size_t below = static_cast<size_t>(std::floor(position));
    const size_t above = std::min(below + 1, values.size() - 1);
    return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
  };
  return {at((1 - level) / 2), at((1 + level) / 2)};
}

std::map<std::string, const SubmissionScore*> by_name(const ScoreResult& r) {
  std::map<std::string, const SubmissionScore*> out;
  for (const auto& s : r.submissions) out[s.name] = &s;
  return out;
}

// The two rankings' correlation over the names both score (by AlgoPerf's score, or by the pace).
std::pair<double, double> correlation(const ScoreResult& a, const ScoreResult& b, bool pace = false) {
  const auto in_b = by_name(b);
  std::vector<double> x, y;
  for (const auto& s : a.submissions) {
    if (auto it = in_b.find(s.name); it != in_b.end()) {
      x.push_back(pace ? -s.pace : s.score);  // a lower pace ranks higher
      y.push_back(pace ? -it->second->pace : it->second->score);
    }
  }
  return {spearman_rho(x, y), kendall_tau_b(x, y)};
}

double pace_of(const ScoreResult& r, const std::string& name) {
  for (const auto& s : r.submissions) {
    if (s.name == name) return s.pace;
  }
  return NAN;
}

double speedup_of(const ScoreResult& r, const std::string& name) {
  for (const auto& s : r.submissions) {
    if (s.name == name) return s.speedup ? *s.speedup : NAN;
  }
  return NAN;
}

double share_above_one(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return static_cast<double>(std::count_if(values.begin(), values.end(), [](double v) { return v > 1; })) /
         static_cast<double>(values.size());
}

// Verdicts against the reference and the groups by the pace (docs/scoring.md): in order of pace,
// a new group starts at the first algorithm whose pace over the current group's first one has its
// whole interval above 1.
void add_verdicts(PartStability& part, const ScoreResult& board, const std::vector<ScoreResult>& replicates,
                  const BoardStabilityOptions& options) {
  if (std::isnan(pace_of(board, options.reference))) return;
  std::vector<const SubmissionScore*> order;
  for (const auto& s : board.submissions) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->pace < b->pace; });
  std::string group_first;
  int group = 0;
  for (const SubmissionScore* s : order) {
    Verdict v;
    v.name = s->name;
    v.speedup = s->speedup ? *s->speedup : NAN;
    v.pace_speedup = pace_of(board, options.reference) / s->pace;
    std::vector<double> speedups, paces, to_first;
    for (const auto& r : replicates) {
      speedups.push_back(speedup_of(r, s->name));
      paces.push_back(pace_of(r, options.reference) / pace_of(r, s->name));
      if (!group_first.empty()) to_first.push_back(pace_of(r, s->name) / pace_of(r, group_first));
    }
    std::tie(v.speedup_low, v.speedup_high) = interval(speedups, options.level);
    std::tie(v.pace_low, v.pace_high) = interval(paces, options.level);
    v.p_faster = share_above_one(speedups);
    v.pace_p_faster = share_above_one(paces);
    if (group_first.empty() || interval(to_first, options.level).first > 1) {
      ++group;
      group_first = s->name;
    }
    v.group = group;
    part.verdicts.push_back(v);
  }
  part.groups = group;
}

std::string number(double v, const char* format = "%.3f") { return std::isnan(v) ? "-" : format_double(format, v); }

std::string verdicts_markdown(const PartStability& p, const BoardStabilityOptions& options, const std::string& level) {
  std::ostringstream out;
  out << "Verdicts against " << options.reference << " (" << p.groups << " group" << (p.groups == 1 ? "" : "s")
      << " separated at " << level << " by the pace; speedups with their " << level
      << " bootstrap interval; P(faster): the share of resamples with a speedup above 1):\n\n"
      << "| group | algorithm | pace speedup | interval | P(faster) | AlgoPerf speedup | interval | P(faster) |\n"
      << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& v : p.verdicts) {
    out << "| " << v.group << " | " << markdown_cell(v.name) << " | " << number(v.pace_speedup) << " | " << number(v.pace_low) << "-"
        << number(v.pace_high) << " | " << format_double("%.0f%%", 100 * v.pace_p_faster) << " | " << number(v.speedup)
        << " | " << number(v.speedup_low) << "-" << number(v.speedup_high) << " | "
        << format_double("%.0f%%", 100 * v.p_faster) << " |\n";
  }
  out << "\n";
  return out.str();
}

// A part scored on the board and on each bootstrap replicate of its studies.
struct ScoredPart {
  const BoardPartScores* part;
  StudyGroups groups;
  ScoreOptions score_options;
  std::vector<ScoreResult> replicates;
};

// Each algorithm's rank interval, the seconds-vs-steps agreement and the verdicts of one part.
PartStability part_stability(const ScoredPart& s, const BoardStabilityOptions& options) {
  PartStability part;
  part.part = s.part->part.name;
  const ScoreResult& board = *s.part->seconds;
  std::vector<std::map<std::string, const SubmissionScore*>> replicas;
  for (const auto& r : s.replicates) replicas.push_back(by_name(r));
  for (size_t i = 0; i < board.submissions.size(); ++i) {
    const auto& sub = board.submissions[i];
    RankInterval ri;
    ri.name = sub.name;
    ri.rank = sub.rank;
    ri.score = sub.score;
    std::vector<double> ranks;
    int above = 0;
    for (const auto& replica : replicas) {
      const SubmissionScore* mine = replica.at(sub.name);
      ranks.push_back(mine->rank);
      if (i + 1 < board.submissions.size() && mine->score > replica.at(board.submissions[i + 1].name)->score) ++above;
    }
    const auto [low, high] = interval(ranks, options.level);
    ri.low = static_cast<int>(std::lround(std::floor(low)));
    ri.high = static_cast<int>(std::lround(std::ceil(high)));
    ri.above_next = replicas.empty() ? 0 : static_cast<double>(above) / static_cast<double>(replicas.size());
    part.ranks.push_back(ri);
  }
  if (s.part->steps) {
    std::tie(part.seconds_steps_spearman, part.seconds_steps_kendall) = correlation(board, *s.part->steps);
    const auto steps = by_name(*s.part->steps);
    for (const auto& sub : board.submissions) part.changed_rank += steps.at(sub.name)->rank != sub.rank;
  }
  add_verdicts(part, board, s.replicates, options);
  return part;
}

// How a rerun's ranking agrees with the external part's, by the score and by the pace, with intervals.
RunAgreement run_agreement(const ScoredPart& external, const ScoredPart& s, const BoardStabilityOptions& options) {
  RunAgreement a;
  a.first = external.part->part.name;
  a.second = s.part->part.name;
  const auto theirs = by_name(*s.part->seconds);
  for (const auto& sub : external.part->seconds->submissions) a.algorithms += theirs.count(sub.name) > 0;
  std::tie(a.spearman, a.kendall) = correlation(*external.part->seconds, *s.part->seconds);
  std::vector<double> rhos, taus;
  for (size_t r = 0; r < s.replicates.size(); ++r) {
    const auto [rho, tau] = correlation(external.replicates[r], s.replicates[r]);
    rhos.push_back(rho);
    taus.push_back(tau);
  }
  std::tie(a.spearman_low, a.spearman_high) = interval(rhos, options.level);
  std::tie(a.kendall_low, a.kendall_high) = interval(taus, options.level);
  a.pace_spearman = correlation(*external.part->seconds, *s.part->seconds, true).first;
  std::vector<double> pace_rhos;
  for (size_t r = 0; r < s.replicates.size(); ++r) {
    pace_rhos.push_back(correlation(external.replicates[r], s.replicates[r], true).first);
  }
  std::tie(a.pace_spearman_low, a.pace_spearman_high) = interval(pace_rhos, options.level);
  return a;
}

}  // namespace

BoardStability board_stability(const std::vector<BoardPartScores>& parts, const BoardStabilityOptions& options) {
  BoardStability stability;
  stability.options = options;
  std::vector<ScoredPart> scored;
  for (const auto& p : parts) {
    if (!p.seconds || p.trials.empty()) continue;
    ScoredPart s{&p, group_studies(p.trials), ScoreOptions{}, {}};
    s.score_options.rules = options.rules;
    s.score_options.self_tuning = p.part.ruleset == Ruleset::self;
    s.score_options.time_axis = TimeAxis::seconds;
    if (std::find(p.names.begin(), p.names.end(), options.reference) != p.names.end()) {
      s.score_options.reference = options.reference;
    }
    scored.push_back(std::move(s));
  }
  std::mt19937_64 rng(options.seed);
  for (int r = 0; r < options.resamples; ++r) {
    for (auto& s : scored) s.replicates.push_back(score_trials(resample(s.groups, rng), s.part->names, s.score_options));
  }
  for (const auto& s : scored) stability.parts.push_back(part_stability(s, options));
  const ScoredPart* external = nullptr;
  for (const auto& s : scored) {
    if (s.part->part.ruleset == Ruleset::external && s.part->part.rerun == 0) external = &s;
  }
  for (const auto& s : scored) {
    if (external && s.part->part.rerun != 0) stability.agreements.push_back(run_agreement(*external, s, options));
  }
  return stability;
}

std::string board_stability_markdown(const BoardStability& stability) {
  std::ostringstream out;
  const std::string level = format_double("%.0f%%", 100 * stability.options.level);
  out << "### Stability\n\n"
      << "A bootstrap over studies (" << stability.options.resamples << " resamples, seed " << stability.options.seed
      << "): each resample draws, for every algorithm x workload, as many studies as it has, with replacement, and "
      << "scores the part again by seconds. Rank interval: the central " << level << " of its ranks. Above the "
      << "next: the share of resamples in which it scores above the algorithm ranked below it; under " << level
      << " the two are a tie within the noise.\n\n";
  for (const auto& p : stability.parts) {
    out << "#### " << p.part << "\n\n| rank | algorithm | score (seconds) | rank interval | above the next |\n"
        << "| --- | --- | --- | --- | --- |\n";
    for (size_t i = 0; i < p.ranks.size(); ++i) {
      const auto& r = p.ranks[i];
      out << "| " << r.rank << " | " << markdown_cell(r.name) << " | " << format_double("%.4f", r.score) << " | " << r.low << "-" << r.high
          << " | ";
      if (i + 1 < p.ranks.size()) {
        out << format_double("%.0f%%", 100 * r.above_next) << (r.above_next >= stability.options.level ? "" : " (tie)");
      }
      out << " |\n";
    }
    out << "\nBy seconds against by steps: Spearman " << number(p.seconds_steps_spearman) << ", Kendall "
        << number(p.seconds_steps_kendall) << "; " << p.changed_rank << " of " << p.ranks.size()
        << " algorithms change rank.\n\n";
    if (!p.verdicts.empty()) out << verdicts_markdown(p, stability.options, level);
  }
  for (const auto& a : stability.agreements) {
    out << "**" << a.first << " against " << a.second << "** (" << a.algorithms << " algorithms, scores by seconds): "
        << "Spearman " << number(a.spearman) << " (" << level << " interval " << number(a.spearman_low) << " to "
        << number(a.spearman_high) << "), Kendall " << number(a.kendall) << " (" << number(a.kendall_low) << " to "
        << number(a.kendall_high) << "). By the pace: Spearman " << number(a.pace_spearman) << " (" << level
        << " interval " << number(a.pace_spearman_low) << " to " << number(a.pace_spearman_high) << ").\n\n";
  }
  return out.str();
}

std::string board_stability_json(const BoardStability& stability) {
  auto value = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  nlohmann::json j;
  j["resamples"] = stability.options.resamples;
  j["seed"] = std::to_string(stability.options.seed);
  j["level"] = stability.options.level;
  j["parts"] = nlohmann::json::array();
  for (const auto& p : stability.parts) {
    nlohmann::json part{{"part", p.part},
                        {"seconds_steps_spearman", value(p.seconds_steps_spearman)},
                        {"seconds_steps_kendall", value(p.seconds_steps_kendall)},
                        {"changed_rank", p.changed_rank},
                        {"ranks", nlohmann::json::array()}};
    for (const auto& r : p.ranks) {
      part["ranks"].push_back({{"name", r.name}, {"rank", r.rank}, {"score", r.score}, {"rank_low", r.low},
                               {"rank_high", r.high}, {"above_next", r.above_next}});
    }
    part["groups"] = p.groups;
    part["verdicts"] = nlohmann::json::array();
    for (const auto& v : p.verdicts) {
      part["verdicts"].push_back({{"name", v.name}, {"group", v.group}, {"pace_speedup", value(v.pace_speedup)},
                                  {"pace_speedup_low", value(v.pace_low)}, {"pace_speedup_high", value(v.pace_high)},
                                  {"pace_p_faster", v.pace_p_faster}, {"speedup", value(v.speedup)},
                                  {"speedup_low", value(v.speedup_low)}, {"speedup_high", value(v.speedup_high)},
                                  {"p_faster", v.p_faster}});
    }
    j["parts"].push_back(part);
  }
  j["agreements"] = nlohmann::json::array();
  for (const auto& a : stability.agreements) {
    j["agreements"].push_back({{"first", a.first}, {"second", a.second}, {"algorithms", a.algorithms},
                               {"spearman", value(a.spearman)}, {"spearman_low", value(a.spearman_low)},
                               {"spearman_high", value(a.spearman_high)}, {"kendall", value(a.kendall)},
                               {"kendall_low", value(a.kendall_low)}, {"kendall_high", value(a.kendall_high)},
                               {"pace_spearman", value(a.pace_spearman)}, {"pace_spearman_low", value(a.pace_spearman_low)},
                               {"pace_spearman_high", value(a.pace_spearman_high)}, {"reference", stability.options.reference}});
  }
  return j.dump(2) + "\n";
}

}  // namespace pacer
