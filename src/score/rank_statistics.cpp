#include "score/rank_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.h"

namespace pacer {
namespace {

void check_sizes(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  if (a.size() != b.size()) {
    throw Error(std::string(what) + ": samples of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                " values");
  }
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return NAN;
  return sxy / std::sqrt(sxx * syy);
}

int sign(double v) { return (v > 0) - (v < 0); }

}  // namespace

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return values[i] < values[j]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = static_cast<double>(i + j) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double spearman_rho(const std::vector<double>& a, const std::vector<double>& b) {
  check_sizes(a, b, "spearman_rho");
  if (a.size() < 2) return NAN;
  return pearson(average_ranks(a), average_ranks(b));
}

double kendall_tau_b(const std::vector<double>& a, const std::vector<double>& b) {
  check_sizes(a, b, "kendall_tau_b");
  // O(n^2) over pairs: leaderboards have tens of entries.
  double concordant_minus_discordant = 0, untied_a = 0, untied_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = i + 1; j < a.size(); ++j) {
      const int sa = sign(a[i] - a[j]), sb = sign(b[i] - b[j]);
      concordant_minus_discordant += sa * sb;
      untied_a += sa != 0;
      untied_b += sb != 0;
    }
  }
  if (untied_a == 0 || untied_b == 0) return NAN;
  return concordant_minus_discordant / std::sqrt(untied_a * untied_b);
}

}  // namespace pacer
