#include "analyze/boundary_check.h"

#include <algorithm>
#include <cmath>

namespace pacer {

std::vector<std::string> BoundaryCheck::verdicts() const {
  std::vector<std::string> out;
  for (const auto& d : dimensions) {
    if (!d.verdict.empty()) out.push_back(d.verdict);
  }
  return out;
}

double unit_position(const SearchDimension& dim, double value) {
  if (dim.scaling == Scaling::log && dim.min > 0 && value > 0) {
    return std::log(value / dim.min) / std::log(dim.max / dim.min);
  }
  return (value - dim.min) / (dim.max - dim.min);
}

BoundaryCheck check_boundaries(const StudyData& data) {
  BoundaryCheck check;
  if (!data.space) {
    check.skip_reason = "no search space (self-tuning or unreadable)";
    return check;
  }
  if (data.space->is_list()) {
    check.skip_reason = "the space is a list of points: no ranges to widen";
    return check;
  }
  const auto ranked = data.ranked_feasible();
  if (ranked.empty()) {
    check.skip_reason = "no feasible trial";
    return check;
  }
  check.best_count = std::min<size_t>(3, std::max<size_t>(1, static_cast<size_t>(std::ceil(0.1 * ranked.size()))));
  for (const auto& dim : data.space->dimensions) {
    BoundaryDimension d;
    d.name = dim.name;
    d.min = dim.min, d.max = dim.max;
    d.log = dim.scaling == Scaling::log;
    if (dim.kind == SearchDimension::Kind::discrete) {
      d.skip_reason = "discrete (feasible_points)";
    } else if (!(dim.max > dim.min)) {
      d.skip_reason = "fixed (min == max)";
    } else {
      d.checked = true;
      for (size_t r = 0; r < check.best_count; ++r) {
        const TrialData& t = data.trials[ranked[r]];
        const auto value = t.hparam(dim.name);
        if (!value) continue;
        d.best.push_back({t.label(), *value, unit_position(dim, *value), *t.objective});
      }
      if (d.best.empty()) {
        d.checked = false;
        d.skip_reason = "the best trials do not set it";
      } else {
        size_t high = 0, low = 0;
        for (const auto& p : d.best) high += p.unit > 0.9, low += p.unit < 0.1;
        const bool best_is_best_trial = d.best.front().trial == data.trials[ranked[0]].label();
        const double u0 = d.best.front().unit;
        // A majority of the best trials: 1 of 1, 2 of 2, 2 of 3.
        const size_t half = d.best.size() / 2 + 1;
        if ((best_is_best_trial && u0 > 0.9) || high >= half) d.verdict = "expand " + dim.name + " upwards";
        else if ((best_is_best_trial && u0 < 0.1) || low >= half) d.verdict = "expand " + dim.name + " downwards";
      }
    }
    check.dimensions.push_back(d);
  }
  return check;
}

}  // namespace pacer
