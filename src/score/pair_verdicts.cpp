#include "score/pair_verdicts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

#include "core/format.h"
#include "score/rank_statistics.h"
#include "score/slot_bootstrap.h"

namespace pacer {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// numpy's default percentile (linear between the closest ranks) of sorted values, q in [0, 1].
double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double median_of(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  return percentile(v, 0.5);
}

// log speedups of i over j (> 0: i faster) across resamples, sorted.
std::vector<double> log_speedups(const SlotBootstrap& b, size_t i, size_t j) {
  std::vector<double> d;
  d.reserve(b.resampled.size());
  for (const auto& row : b.resampled) d.push_back(row[j] - row[i]);
  std::sort(d.begin(), d.end());
  return d;
}

const WorkloadScore* cell(const SubmissionScore& s, const std::string& workload) {
  for (const auto& ws : s.workloads)
    if (ws.workload == workload) return &ws;
  return nullptr;
}

// rliable's probability of improvement on trials: per workload P(c_A < c_B) + P(c_A = c_B) / 2
// over every pair of their trials, averaged over the workloads both ran.
double probability_of_improvement(const ScoreResult& run, const SubmissionScore& a, const SubmissionScore& b) {
  std::vector<double> per_workload;
  for (const auto& w : run.base_workloads) {
    const WorkloadScore *ca = cell(a, w), *cb = cell(b, w);
    if (!ca || !cb || ca->trial_costs.empty() || cb->trial_costs.empty()) continue;
    double wins = 0;
    for (const auto& x : ca->trial_costs)
      for (const auto& y : cb->trial_costs) wins += x.cost < y.cost ? 1.0 : x.cost == y.cost ? 0.5 : 0.0;
    per_workload.push_back(wins / static_cast<double>(ca->trial_costs.size() * cb->trial_costs.size()));
  }
  if (per_workload.empty()) return kNaN;
  return std::accumulate(per_workload.begin(), per_workload.end(), 0.0) / static_cast<double>(per_workload.size());
}

// Spearman's rho over the slots both ran, per workload (>= 3 shared slots), the median.
double paired_correlation(const ScoreResult& run, const SubmissionScore& a, const SubmissionScore& b) {
  std::vector<double> rhos;
  for (const auto& w : run.base_workloads) {
    const WorkloadScore *ca = cell(a, w), *cb = cell(b, w);
    if (!ca || !cb) continue;
    std::map<std::pair<int, int>, double> of_b;
    for (const auto& t : cb->trial_costs) of_b.emplace(std::make_pair(t.study, t.trial), t.cost);
    std::vector<double> x, y;
    for (const auto& t : ca->trial_costs) {
      const auto it = of_b.find({t.study, t.trial});
      if (it == of_b.end()) continue;
      x.push_back(t.cost);
      y.push_back(it->second);
    }
    if (x.size() >= 3) rhos.push_back(spearman_rho(x, y));
  }
  return median_of(rhos);
}

PairVerdict compare(const ScoreResult& run, const SlotBootstrap& paired, const SlotBootstrap* unpaired, size_t i,
                    size_t j, const VerdictOptions& options) {
  const double level = options.level;
  PairVerdict v;
  v.a = run.submissions[i].name;
  v.b = run.submissions[j].name;
  v.speedup = std::exp(paired.log_paces[j] - paired.log_paces[i]);
  const std::vector<double> d = log_speedups(paired, i, j);
  const double tail = (1.0 - level) / 2.0;
  v.low = std::exp(percentile(d, tail));
  v.high = std::exp(percentile(d, 1.0 - tail));
  v.p_value = options.p_values == VerdictOptions::PValues::permutation
                  ? slot_permutation_p_value(run, i, j, options.resamples, options.seed + 7919 * (i + 1) + j)
                  : bootstrap_p_value(d);
  v.resolution = std::sqrt(v.high / v.low);
  v.probability_of_improvement = probability_of_improvement(run, run.submissions[i], run.submissions[j]);
  v.paired_correlation = paired_correlation(run, run.submissions[i], run.submissions[j]);
  if (unpaired) {
    const std::vector<double> u = log_speedups(*unpaired, i, j);
    v.unpaired_low = std::exp(percentile(u, tail));
    v.unpaired_high = std::exp(percentile(u, 1.0 - tail));
  }
  return v;
}

VerdictFamily decide(std::vector<PairVerdict>& family, double familywise) {
  std::vector<double> p;
  for (const auto& v : family) p.push_back(v.p_value);
  const std::vector<bool> rejected = holm_rejections(p, familywise);
  VerdictFamily f;
  std::vector<double> resolutions, width_ratios;
  for (size_t k = 0; k < family.size(); ++k) {
    PairVerdict& v = family[k];
    v.verdict = !rejected[k] ? "not separated" : v.speedup > 1 ? "faster" : "slower";
    (v.verdict == "faster" ? f.faster : v.verdict == "slower" ? f.slower : f.not_separated)++;
    resolutions.push_back(v.resolution);
    const double unpaired_width = std::log(v.unpaired_high / v.unpaired_low);
    if (v.unpaired_low > 0 && unpaired_width > 0) width_ratios.push_back(std::log(v.high / v.low) / unpaired_width);
  }
  f.median_resolution = median_of(resolutions);
  f.median_width_ratio = width_ratios.empty() ? 0.0 : median_of(width_ratios);
  return f;
}

std::string row_text(const PairVerdict& v, size_t width, bool both) {
  std::string name = both ? v.a + " vs " + v.b : v.a;
  name.resize(std::max(width, name.size()), ' ');
  return "  " + name + format_double("  %7.3fx", v.speedup) + format_double("  %.3f", v.low) + format_double("-%.3f", v.high) +
         format_double("  %9.3fx", v.resolution) + format_double("  %13.0f%%", 100 * v.probability_of_improvement) +
         format_double("  %.4f", v.p_value) + "  " + v.verdict;
}

}  // namespace

double bootstrap_p_value(const std::vector<double>& log_speedups) {
  const double r = static_cast<double>(log_speedups.size());
  if (r == 0) return 1.0;
  double at_most = 0, at_least = 0;
  for (double d : log_speedups) {
    at_most += d <= 0 ? 1 : 0;
    at_least += d >= 0 ? 1 : 0;
  }
  return std::min(1.0, 2.0 * std::min((1 + at_most) / (r + 1), (1 + at_least) / (r + 1)));
}

std::vector<bool> holm_rejections(const std::vector<double>& p_values, double level) {
  std::vector<size_t> order(p_values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p_values[x] < p_values[y]; });
  std::vector<bool> rejected(p_values.size(), false);
  const double m = static_cast<double>(p_values.size());
  for (size_t k = 0; k < order.size(); ++k) {
    if (!(p_values[order[k]] <= level / (m - static_cast<double>(k)))) break;  // step-down: stop at the first kept
    rejected[order[k]] = true;
  }
  return rejected;
}

VerdictTables pair_verdicts(const ScoreResult& run, const VerdictOptions& options) {
  VerdictTables v;
  v.options = options;
  const SlotBootstrap paired = slot_bootstrap(run, {options.resamples, options.seed, true});
  std::optional<SlotBootstrap> unpaired;
  if (options.unpaired_too) unpaired = slot_bootstrap(run, {options.resamples, options.seed + 1, false});
  const SlotBootstrap* u = unpaired ? &*unpaired : nullptr;
  const size_t n = run.submissions.size();
  for (size_t i = 0; i < n && options.all_pairs; ++i)
    for (size_t j = i + 1; j < n; ++j) v.pairs.push_back(compare(run, paired, u, i, j, options));
  for (size_t r = 0; r < n && !options.reference.empty(); ++r) {
    if (run.submissions[r].name != options.reference) continue;
    for (size_t i = 0; i < n; ++i)
      if (i != r) v.against_reference.push_back(compare(run, paired, u, i, r, options));
  }
  v.pair_family = decide(v.pairs, options.familywise);
  v.reference_family = decide(v.against_reference, options.familywise);
  std::vector<double> correlations;
  for (const auto& p : v.pairs) correlations.push_back(p.paired_correlation);
  v.median_paired_correlation = median_of(correlations);
  return v;
}

std::string verdicts_text(const VerdictTables& v) {
  std::ostringstream out;
  out << "verdicts by the expected pace (paired bootstrap over trial slots, " << v.options.resamples << " resamples, seed "
      << v.options.seed << "; " << format_double("%.0f%%", 100 * v.options.level) << " intervals; Holm at "
      << format_double("%g%%", 100 * v.options.familywise) << " per family)\n";
  auto family_line = [&](const std::string& what, const VerdictFamily& f, size_t count) {
    out << what << " (" << count << "): " << f.faster << " faster, " << f.slower << " slower, " << f.not_separated
        << " not separated; median resolution " << format_double("%.3fx", f.median_resolution);
    if (f.median_width_ratio > 0) out << "; paired intervals " << format_double("%.2f", f.median_width_ratio) << " x the unpaired width";
    out << "\n";
  };
  auto table = [&](const std::vector<PairVerdict>& rows, bool both) {
    size_t width = 10;
    for (const auto& p : rows) width = std::max(width, both ? p.a.size() + p.b.size() + 4 : p.a.size());
    std::string head = both ? "pair" : "submission";
    head.resize(width, ' ');
    out << "  " << head << "   speedup  interval       resolution  P(improvement)  p       verdict\n";
    for (const auto& p : rows) out << row_text(p, width, both) << "\n";
  };
  if (!v.against_reference.empty()) {
    family_line("against " + v.options.reference, v.reference_family, v.against_reference.size());
    table(v.against_reference, false);
  }
  family_line("all pairs", v.pair_family, v.pairs.size());
  if (v.against_reference.empty() && v.pairs.size() <= 10) table(v.pairs, true);
  if (!std::isnan(v.median_paired_correlation))
    out << "paired outcomes: Spearman over shared slots, median over pairs " << format_double("%.3f", v.median_paired_correlation) << "\n";
  return out.str();
}

std::string verdicts_csv(const VerdictTables& v) {
  std::ostringstream out;
  out << "family,a,b,speedup,low,high,p_value,verdict,resolution,probability_of_improvement,unpaired_low,unpaired_high,"
         "paired_correlation\n";
  auto rows = [&](const std::string& family, const std::vector<PairVerdict>& list) {
    for (const auto& p : list) {
      out << family << "," << p.a << "," << p.b << "," << format_double("%.6g", p.speedup) << ","
          << format_double("%.6g", p.low) << "," << format_double("%.6g", p.high) << "," << format_double("%.6g", p.p_value)
          << "," << p.verdict << "," << format_double("%.6g", p.resolution) << ","
          << format_double("%.6g", p.probability_of_improvement) << "," << format_double("%.6g", p.unpaired_low) << ","
          << format_double("%.6g", p.unpaired_high) << "," << format_double("%.6g", p.paired_correlation) << "\n";
    }
  };
  rows("reference", v.against_reference);
  rows("pairs", v.pairs);
  return out.str();
}

}  // namespace pacer
