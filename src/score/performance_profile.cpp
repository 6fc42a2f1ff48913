#include "score/performance_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"

namespace pacer {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int kTauPoints = 100;

std::string format_cut(double t, double best) {
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer), "cut: %.6g > 4 x fastest (%.6g)", t, best);
  return buffer;
}

}  // namespace

std::vector<double> tau_grid() {
  // numpy.linspace: start + k * (delta / (num - 1)), the last point set to stop exactly.
  std::vector<double> tau(kTauPoints);
  const double step = (kMaxTau - 1.0) / (kTauPoints - 1);
  for (int k = 0; k < kTauPoints; ++k) tau[k] = k * step + 1.0;
  tau.back() = kMaxTau;
  return tau;
}

double profile_area(const std::vector<double>& rho, const std::vector<double>& tau) {
  double area = 0.0;
  for (size_t k = 1; k < tau.size(); ++k) area += (tau[k] - tau[k - 1]) * (rho[k] + rho[k - 1]) / 2.0;
  return area / (tau.back() - tau.front());
}

ProfileResult compute_performance_profiles(const ProfileInput& in) {
  const size_t S = in.submissions.size(), W = in.workloads.size();
  if (in.times.size() != S) throw Error("performance profiles: times has the wrong number of rows");
  ProfileResult out;
  out.reason.assign(S, std::vector<std::string>(W));
  std::vector<std::vector<double>> t(S, std::vector<double>(W, kInfinity));
  auto column = [&](const std::string& name) -> int {
    auto it = std::find(in.workloads.begin(), in.workloads.end(), name);
    return it == in.workloads.end() ? -1 : static_cast<int>(it - in.workloads.begin());
  };
  auto is_variant = [&](size_t w) { return in.base_of.count(in.workloads[w]) > 0; };

  for (size_t s = 0; s < S; ++s) {
    for (size_t w = 0; w < W; ++w) {
      const auto& v = in.times[s][w];
      if (!v) out.reason[s][w] = "missing: no logs";
      else if (std::isinf(*v)) out.reason[s][w] = "not reached";
      else t[s][w] = *v;
    }
  }
  // Scored columns: base workloads, plus the base of any held-out variant even if nobody ran it.
  for (size_t w = 0; w < W; ++w) {
    if (!is_variant(w)) out.base_workloads.push_back(in.workloads[w]);
  }
  if (in.held_out_variants) {
    for (size_t w = 0; w < W; ++w) {
      if (!is_variant(w)) continue;
      const std::string& base = in.base_of.at(in.workloads[w]);
      if (std::find(out.base_workloads.begin(), out.base_workloads.end(), base) == out.base_workloads.end()) {
        out.base_workloads.push_back(base);
      }
    }
  } else {
    for (size_t s = 0; s < S; ++s) {
      for (size_t w = 0; w < W; ++w) {
        if (is_variant(w)) out.reason[s][w] = "not scored: a variant, and these rules have no held-out variants";
      }
    }
  }

  // 1. A held-out variant counts only where its base workload reached the target.
  if (in.held_out_variants) {
    for (size_t w = 0; w < W; ++w) {
      if (!is_variant(w)) continue;
      const int b = column(in.base_of.at(in.workloads[w]));
      for (size_t s = 0; s < S; ++s) {
        if ((b < 0 || std::isinf(t[s][b])) && !std::isinf(t[s][w])) {
          t[s][w] = kInfinity;
          out.reason[s][w] = "cut: base workload " + in.base_of.at(in.workloads[w]) + " not reached";
        }
      }
    }
  }
  // 2. The 4x cut-off, on every column.
  for (size_t w = 0; w < W; ++w) {
    double best = kInfinity;
    for (size_t s = 0; s < S; ++s) best = std::min(best, t[s][w]);
    for (size_t s = 0; s < S; ++s) {
      if (!std::isinf(t[s][w]) && t[s][w] > kMaxTau * best) {
        out.reason[s][w] = format_cut(t[s][w], best);
        t[s][w] = kInfinity;
      }
    }
  }
  // 3. A base workload counts only where its held-out variant reached the target (after step 2).
  if (in.held_out_variants) {
    for (size_t w = 0; w < W; ++w) {
      if (!is_variant(w)) continue;
      const int b = column(in.base_of.at(in.workloads[w]));
      if (b < 0) continue;
      for (size_t s = 0; s < S; ++s) {
        if (std::isinf(t[s][w]) && !std::isinf(t[s][b])) {
          t[s][b] = kInfinity;
          out.reason[s][b] = "cut: held-out variant " + in.workloads[w] + " not within the rules (" +
                             (out.reason[s][w].empty() ? "not reached" : out.reason[s][w]) + ")";
        }
      }
    }
  }

  // 4.-5. Ratios, profiles, score over the base columns.
  const size_t B = out.base_workloads.size();
  out.scored.assign(S, std::vector<double>(B, kInfinity));
  out.ratio.assign(S, std::vector<double>(B, kInfinity));
  for (size_t b = 0; b < B; ++b) {
    const int w = column(out.base_workloads[b]);
    if (w < 0) continue;  // a base nobody ran: inf for everyone, still counted in the denominator
    double best = kInfinity;
    for (size_t s = 0; s < S; ++s) best = std::min(best, t[s][w]);
    for (size_t s = 0; s < S; ++s) {
      out.scored[s][b] = t[s][w];
      // A zero fastest time (a degenerate log) would give 0/0: only equal times count then.
      if (!std::isinf(t[s][w])) out.ratio[s][b] = best > 0 ? t[s][w] / best : (t[s][w] == 0 ? 1.0 : kInfinity);
    }
  }
  out.tau = tau_grid();
  out.rho.assign(S, std::vector<double>(out.tau.size(), 0.0));
  out.score.assign(S, 0.0);
  for (size_t s = 0; s < S; ++s) {
    for (size_t k = 0; k < out.tau.size(); ++k) {
      int count = 0;
      for (size_t b = 0; b < B; ++b) count += out.ratio[s][b] <= out.tau[k] ? 1 : 0;
      out.rho[s][k] = B ? static_cast<double>(count) / B : 0.0;
    }
    out.score[s] = profile_area(out.rho[s], out.tau);
  }
  return out;
}

}  // namespace pacer
