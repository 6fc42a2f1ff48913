#include "tune/board_verdicts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/format.h"
#include "score/rank_statistics.h"
#include "score/slot_bootstrap.h"

namespace pacer {
namespace {

// The verdict of a against b in a family, whichever order the family holds them in.
std::map<std::pair<std::string, std::string>, std::string> verdict_map(const std::vector<PairVerdict>& family) {
  std::map<std::pair<std::string, std::string>, std::string> m;
  for (const auto& p : family) {
    m[{p.a, p.b}] = p.verdict;
    m[{p.b, p.a}] = p.verdict == "faster" ? "slower" : p.verdict == "slower" ? "faster" : p.verdict;
  }
  return m;
}

// Spearman between the two runs' expected paces over their common algorithms, and its interval
// from each run's own paired bootstrap (independent seeds).
void agreement(const ScoreResult& first, const ScoreResult& second, int resamples, RunsJudgement& j) {
  std::vector<size_t> in_first, in_second;
  for (size_t a = 0; a < first.submissions.size(); ++a)
    for (size_t b = 0; b < second.submissions.size(); ++b)
      if (first.submissions[a].name == second.submissions[b].name) in_first.push_back(a), in_second.push_back(b);
  j.algorithms = static_cast<int>(in_first.size());
  std::vector<double> x, y;
  for (size_t k = 0; k < in_first.size(); ++k) {
    x.push_back(first.submissions[in_first[k]].expected_pace);
    y.push_back(second.submissions[in_second[k]].expected_pace);
  }
  j.spearman = x.size() >= 2 ? spearman_rho(x, y) : std::nan("");
  if (resamples <= 0 || x.size() < 2) return;
  const SlotBootstrap b1 = slot_bootstrap(first, {resamples, 1, true});
  const SlotBootstrap b2 = slot_bootstrap(second, {resamples, 2, true});
  std::vector<double> rhos;
  for (int r = 0; r < resamples; ++r) {
    for (size_t k = 0; k < in_first.size(); ++k) {
      x[k] = b1.resampled[static_cast<size_t>(r)][in_first[k]];
      y[k] = b2.resampled[static_cast<size_t>(r)][in_second[k]];
    }
    const double rho = spearman_rho(x, y);
    if (!std::isnan(rho)) rhos.push_back(rho);
  }
  std::sort(rhos.begin(), rhos.end());
  if (rhos.empty()) return;
  auto at = [&](double q) { return rhos[static_cast<size_t>(std::lround(q * static_cast<double>(rhos.size() - 1)))]; };
  j.spearman_low = at(0.025);
  j.spearman_high = at(0.975);
}

RunsJudgement judge(const PartVerdicts& first, const BoardPartScores& first_scores, const PartVerdicts& second,
                    const BoardPartScores& second_scores, const BoardVerdictOptions& options) {
  RunsJudgement j;
  j.first = first.part;
  j.second = second.part;
  agreement(*first_scores.seconds, *second_scores.seconds, options.agreement_resamples, j);
  const auto in_second = verdict_map(second.tables.pairs);
  for (const auto& p : first.tables.pairs) {
    const auto it = in_second.find({p.a, p.b});
    if (it == in_second.end()) continue;
    ++j.pairs;
    const std::string& other = it->second;
    if ((p.verdict == "faster" && other == "slower") || (p.verdict == "slower" && other == "faster")) ++j.reversed;
    if (p.verdict != "not separated") ++j.separated_first, j.same_in_second += other == p.verdict;
    if (other != "not separated") ++j.separated_second, j.same_in_first += other == p.verdict;
  }
  j.resolution_first = first.tables.reference_family.median_resolution;
  j.resolution_second = second.tables.reference_family.median_resolution;
  const auto reference_second = verdict_map(second.tables.against_reference);
  for (const auto& p : first.tables.against_reference) {
    const auto it = reference_second.find({p.a, p.b});
    if (it != reference_second.end() && p.verdict != "not separated" && it->second == p.verdict) j.holding.push_back(p.a);
  }
  return j;
}

std::string share(int part, int whole) {
  return std::to_string(part) + " of " + std::to_string(whole) +
         (whole > 0 ? format_double(" (%.0f%%)", 100.0 * part / whole) : std::string());
}

}  // namespace

BoardVerdicts board_verdicts(const std::vector<BoardPartScores>& parts, const BoardVerdictOptions& options) {
  BoardVerdicts v;
  v.options = options;
  std::vector<const BoardPartScores*> scored;
  for (const auto& p : parts) {
    if (p.part.ruleset != Ruleset::external || !p.seconds || p.seconds->submissions.size() < 2) continue;
    VerdictOptions o;
    o.resamples = options.resamples;
    const auto& subs = p.seconds->submissions;
    if (std::any_of(subs.begin(), subs.end(), [&](const SubmissionScore& s) { return s.name == options.reference; }))
      o.reference = options.reference;
    VerdictOptions exact = o;
    exact.p_values = VerdictOptions::PValues::permutation;
    exact.unpaired_too = false;
    v.parts.push_back({p.part.name, pair_verdicts(*p.seconds, o), pair_verdicts(*p.seconds, exact)});
    scored.push_back(&p);
  }
  for (size_t k = 1; k < v.parts.size(); ++k) {
    if (scored[0]->part.rerun != 0) break;  // no first external run to judge against
    v.judgements.push_back(judge(v.parts[0], *scored[0], v.parts[k], *scored[k], options));
    const PartVerdicts first{v.parts[0].part, v.parts[0].permutation, {}}, other{v.parts[k].part, v.parts[k].permutation, {}};
    BoardVerdictOptions no_interval = options;
    no_interval.agreement_resamples = 0;  // the Spearman is the same; its interval is in the first table
    v.permutation_judgements.push_back(judge(first, *scored[0], other, *scored[k], no_interval));
  }
  return v;
}

std::string board_verdicts_markdown(const BoardVerdicts& v) {
  std::ostringstream md;
  if (v.parts.empty()) return "";
  md << "\n## Verdicts by the expected pace\n\n"
     << "Per external run, by the all-trials score of docs/scoring.md (\"The expected pace\"): paired bootstrap over "
        "trial slots, "
     << v.options.resamples << " resamples; Holm at 5% per family; resolution: the smallest speedup the 95% interval's "
                               "width separates from 1.\n";
  for (const auto& p : v.parts) {
    const VerdictTables& t = p.tables;
    md << "\n### " << p.part << "\n\n";
    if (!t.against_reference.empty()) {
      const VerdictFamily& f = t.reference_family;
      md << "Against " << t.options.reference << ": " << f.faster << " faster, " << f.slower << " slower, "
         << f.not_separated << " not separated; median resolution " << format_double("%.3fx", f.median_resolution);
      if (f.median_width_ratio > 0) md << "; the paired intervals " << format_double("%.2f", f.median_width_ratio) << " x the unpaired width";
      md << ".\n\n| algorithm | speedup | 95% interval | resolution | P(improvement) | p | verdict |\n"
         << "| --- | --- | --- | --- | --- | --- | --- |\n";
      for (const auto& r : t.against_reference) {
        md << "| " << markdown_cell(r.a) << " | " << format_double("%.3f", r.speedup) << " | " << format_double("%.3f", r.low) << "-"
           << format_double("%.3f", r.high) << " | " << format_double("%.3f", r.resolution) << " | "
           << format_double("%.0f%%", 100 * r.probability_of_improvement) << " | " << format_double("%.4f", r.p_value)
           << " | " << r.verdict << " |\n";
      }
    }
    const VerdictFamily& f = t.pair_family;
    md << "\nAll " << t.pairs.size() << " pairs: " << f.faster + f.slower << " separated, " << f.not_separated
       << " not separated; median resolution " << format_double("%.3fx", f.median_resolution);
    if (!std::isnan(t.median_paired_correlation))
      md << "; paired outcomes correlate at Spearman " << format_double("%.3f", t.median_paired_correlation) << " (median over pairs)";
    md << ".\n";
    const VerdictTables& e = p.permutation;
    md << "\nExploratory, not pre-registered: the same verdicts by the paired permutation test (exact; the bootstrap's "
          "p-value was measured liberal, docs/leaderboard.md): against "
       << (e.against_reference.empty() ? std::string("no reference") : e.options.reference) << " "
       << e.reference_family.faster << " faster, " << e.reference_family.slower << " slower, "
       << e.reference_family.not_separated << " not separated; all pairs " << e.pair_family.faster + e.pair_family.slower
       << " separated, " << e.pair_family.not_separated << " not.\n";
  }
  auto rows = [&](const std::vector<RunsJudgement>& judgements, const std::string& label) {
    for (const auto& j : judgements) {
      std::string holding;
      for (const auto& h : j.holding) holding += (holding.empty() ? "" : ", ") + markdown_cell(h);
      md << "| " << j.first << " / " << j.second << label << " | " << j.algorithms << " | "
         << format_double("%.3f", j.spearman) << " | "
         << (j.spearman_low != 0 || j.spearman_high != 0 ? format_double("%.3f", j.spearman_low) + "-" + format_double("%.3f", j.spearman_high) : "")
         << " | " << j.reversed << " of " << j.pairs << " | " << share(j.same_in_second, j.separated_first) << " | "
         << share(j.same_in_first, j.separated_second) << " | " << format_double("%.3f", j.resolution_first) << " / "
         << format_double("%.3f", j.resolution_second) << " | " << j.holding.size()
         << (holding.empty() ? "" : ": " + holding) << " |\n";
    }
  };
  if (!v.judgements.empty()) {
    md << "\n### The runs judged (docs/scoring.md, \"How the third board will be judged\")\n\n"
       << "| runs | algorithms | Spearman (expected pace) | 95% interval | reversed | separated in the first, same in the "
          "second | separated in the second, same in the first | median resolution vs the reference | verdicts vs the "
          "reference holding in both |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    rows(v.judgements, "");
    rows(v.permutation_judgements, " (permutation test, exploratory)");
  }
  return md.str();
}

}  // namespace pacer
