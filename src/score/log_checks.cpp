#include "score/log_checks.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace pacer {
namespace {

// Row i in the log (the header is line 1); for a store's trial, the eval's position.
std::string position(const TrialLog& trial, size_t row) {
  return trial.from_store ? "eval " + std::to_string(row + 1) : "line " + std::to_string(row + 2);
}
std::string where(const TrialLog& trial, size_t row) {
  return trial.source + (trial.from_store ? ": eval " + std::to_string(row + 1) : ":" + std::to_string(row + 2));
}

std::string as_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// The other columns' values of row i: two rows that agree on them are one eval logged twice.
std::vector<double> metrics_of(const TrialLog& trial, size_t row) {
  std::vector<double> values;
  for (const auto& [name, column] : trial.columns) {
    if (name == "score" || name == "global_step" || name == "accumulated_submission_time") continue;
    values.push_back(row < column.size() ? column[row] : NAN);
  }
  return values;
}

bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> check_log_times(TrialLog& trial) {
  if (!trial.problem.empty()) return std::nullopt;
  std::optional<std::string> backwards;
  for (const char* name : {"score", "global_step"}) {
    const std::vector<double>* times = trial.column(name);
    if (!times) continue;
    double latest = -INFINITY;
    size_t latest_row = 0;
    for (size_t i = 0; i < times->size(); ++i) {
      const double t = (*times)[i];
      if (std::isnan(t)) continue;  // an empty cell: no time, checked where it would count
      if (std::isinf(t) || t < 0) {
        trial.problem = where(trial, i) + ": '" + name + "' is " + as_text(t) + ": not a " +
                        (std::string(name) == "score" ? "submission time" : "step count") +
                        " (they count up from 0)";
        return std::nullopt;
      }
      if (t < latest && !backwards) {
        backwards = where(trial, i) + ": '" + name + "' " + as_text(t) + " after " + as_text(latest) + " at " +
                    position(trial, latest_row) + ": rows out of order or a resumed run's evals logged again";
      }
      if (t >= latest) {
        latest = t;
        latest_row = i;
      }
    }
  }
  // Two rows of one step and one time: the same eval logged twice, unless their metrics differ.
  const std::vector<double>* steps = trial.column("global_step");
  const std::vector<double>* seconds = trial.column("score");
  std::optional<std::string> repeated;
  if (steps && seconds) {
    std::map<std::pair<double, double>, size_t> seen;
    for (size_t i = 0; i < steps->size() && i < seconds->size() && !repeated; ++i) {
      if (std::isnan((*steps)[i]) || std::isnan((*seconds)[i])) continue;
      auto [it, fresh] = seen.emplace(std::make_pair((*steps)[i], (*seconds)[i]), i);
      if (!fresh && !same_values(metrics_of(trial, it->second), metrics_of(trial, i))) {
        repeated = where(trial, i) + ": step " + as_text((*steps)[i]) + " at " + as_text((*seconds)[i]) +
                   " s again (first at " + position(trial, it->second) + ") with other metrics";
      }
    }
  }
  if (!backwards && !repeated) return std::nullopt;
  std::string warning = backwards ? *backwards : *repeated;
  if (backwards && repeated) warning += "; " + *repeated;
  return warning + ": scored in file order, the first row that reaches the target counting, as AlgoPerf's scorer does";
}

}  // namespace pacer
