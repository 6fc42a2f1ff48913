#include "score/speedup.h"

#include <cmath>

#include "core/error.h"

namespace pacer {

double geometric_mean_speedup(const std::vector<double>& reference_times, const std::vector<double>& times,
                              const std::vector<double>& budgets) {
  if (reference_times.size() != times.size() || times.size() != budgets.size()) {
    throw Error("geometric_mean_speedup: sizes differ");
  }
  if (times.empty()) return std::nan("");
  double log_sum = 0.0;
  for (size_t w = 0; w < times.size(); ++w) {
    const double capped = budgets[w] + 1.0;
    const double ref = std::isfinite(reference_times[w]) ? reference_times[w] : capped;
    const double t = std::isfinite(times[w]) ? times[w] : capped;
    log_sum += std::log(ref / t);  // sums of logs: no overflow across many workloads
  }
  return std::exp(log_sum / times.size());
}

}  // namespace pacer
