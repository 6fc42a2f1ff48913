#include "score/expected_pace.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pacer {

std::vector<double> best_of_k_weights(int n, int k) {
  std::vector<double> w(static_cast<size_t>(std::max(n, 0)), 0.0);
  if (n <= 0) return w;
  k = std::clamp(k, 1, n);
  // w_1 = k / n; w_{i+1} = w_i * (n - i - k + 1) / (n - i): the ratio of C(n-i-1, k-1) to C(n-i, k-1).
  double wi = static_cast<double>(k) / n;
  for (int i = 1; i <= n - k + 1; ++i) {
    w[static_cast<size_t>(i - 1)] = wi;
    if (i < n) wi *= static_cast<double>(n - i - k + 1) / (n - i);
  }
  return w;
}

double expected_best_of_k(std::vector<double> costs, int k) {
  if (costs.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(costs.begin(), costs.end());
  const std::vector<double> w = best_of_k_weights(static_cast<int>(costs.size()), k);
  double sum = 0.0;
  for (size_t i = 0; i < costs.size(); ++i)
    if (w[i] > 0) sum += w[i] * costs[i];
  return sum;
}

}  // namespace pacer
