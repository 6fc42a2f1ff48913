#pragma once
// The alternative summary number of AlgoPerf: the geometric mean, over workloads, of a reference
// submission's time divided by this submission's (> 1: faster than the reference). A time that is
// infinite (not reached, missing) is replaced by the workload's budget + 1.
//
//   double g = pacer::geometric_mean_speedup({10, inf}, {5, 20}, {60, 60});  // sqrt(2 * 61/20)
#include <vector>

namespace pacer {

double geometric_mean_speedup(const std::vector<double>& reference_times, const std::vector<double>& times,
                              const std::vector<double>& budgets);

}  // namespace pacer
