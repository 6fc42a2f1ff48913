#include "analyze/hyperparameter_importance.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "analyze/boundary_check.h"

namespace pacer {
namespace {

// Value -> the position used for binning (monotone in the value, so only the order matters for
// quantile bins, but the log mapping keeps the reported evidence in the space's terms).
double position_of(const StudyData& data, const std::string& name, double value) {
  if (data.space && !data.space->is_list()) {
    for (const auto& dim : data.space->dimensions) {
      if (dim.name == name && dim.kind == SearchDimension::Kind::range && dim.max > dim.min) {
        return unit_position(dim, value);
      }
    }
  }
  return value;
}

// One hyperparameter's eta squared over quantile bins of its position in the space, with each
// bin's feasible and infeasible trials; none for fewer than 6 feasible trials or a constant value.
std::optional<HyperparameterImportance> importance_of(const StudyData& data, const std::string& name) {
  struct Point {
    double pos, value, objective;
  };
  std::vector<Point> points;
  std::vector<double> infeasible_positions;
  for (const auto& t : data.trials) {
    const auto v = t.hparam(name);
    if (!v) continue;
    if (t.feasible()) points.push_back({position_of(data, name, *v), *v, *t.objective});
    else infeasible_positions.push_back(position_of(data, name, *v));
  }
  if (points.size() < 6) return std::nullopt;
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.pos < b.pos; });
  if (points.front().pos == points.back().pos) return std::nullopt;  // constant: explains nothing
  const size_t n = points.size();
  const size_t bins = std::clamp<size_t>(n / 3, 2, 5);
  // Bin edges at quantiles; a point goes to the bin of the last edge <= its position, so ties
  // never straddle two bins.
  std::vector<double> edges;
  for (size_t j = 1; j < bins; ++j) edges.push_back(points[j * n / bins].pos);
  auto bin_of = [&](double pos) {
    return static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), pos) - edges.begin());
  };
  std::vector<ImportanceBin> raw(bins);
  std::vector<double> sums(bins, 0.0);
  double mean = 0;
  for (const auto& p : points) mean += p.objective;
  mean /= static_cast<double>(n);
  for (const auto& p : points) {
    auto& b = raw[bin_of(p.pos)];
    if (b.feasible == 0) b.low = p.value;
    b.high = p.value;
    ++b.feasible;
    sums[bin_of(p.pos)] += p.objective;
  }
  double between = 0, total = 0;
  for (const auto& p : points) total += (p.objective - mean) * (p.objective - mean);
  HyperparameterImportance h;
  h.name = name;
  for (size_t j = 0; j < bins; ++j) {
    if (raw[j].feasible == 0) continue;
    raw[j].mean_objective = sums[j] / raw[j].feasible;
    between += raw[j].feasible * (raw[j].mean_objective - mean) * (raw[j].mean_objective - mean);
  }
  // Ties can leave a bin empty: an infeasible trial goes to the last non-empty bin at or below its own.
  std::vector<size_t> kept;
  for (size_t j = 0; j < bins; ++j) {
    if (raw[j].feasible > 0) kept.push_back(j), h.bins.push_back(raw[j]);
  }
  for (double pos : infeasible_positions) {
    const size_t j = bin_of(pos);
    size_t k = 0;
    while (k + 1 < kept.size() && kept[k + 1] <= j) ++k;
    ++h.bins[k].infeasible;
  }
  h.eta_squared = total > 0 ? between / total : 0.0;
  h.chance_level = static_cast<double>(h.bins.size() - 1) / static_cast<double>(n - 1);
  return h;
}

}  // namespace

bool above_chance(const HyperparameterImportance& h) { return h.eta_squared > 0 && h.eta_squared >= 2 * h.chance_level; }

Importance hyperparameter_importance(const StudyData& data) {
  Importance out;
  out.feasible = static_cast<int>(data.feasible_count());
  if (out.feasible < 6) {
    out.note = "fewer than 6 feasible trials (" + std::to_string(out.feasible) + "): importance not meaningful";
    return out;
  }
  out.meaningful = true;
  // Every hyperparameter name, in first-seen order.
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& t : data.trials) {
    for (const auto& [name, value] : t.hparams) {
      if (seen.insert(name).second) names.push_back(name);
    }
  }
  for (const auto& name : names) {
    if (auto h = importance_of(data, name)) out.ranked.push_back(std::move(*h));
  }
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const HyperparameterImportance& a, const HyperparameterImportance& b) {
                     return a.eta_squared > b.eta_squared;
                   });
  return out;
}

}  // namespace pacer
