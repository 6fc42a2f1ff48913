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

namespace {

// The times as the rules cut them, one row per submission, and why each cell is what it is.
struct Cells {
  const ProfileInput& in;
  std::vector<std::vector<double>> t;
  std::vector<std::vector<std::string>>& reason;

  size_t submissions() const { return in.submissions.size(); }
  size_t workloads() const { return in.workloads.size(); }
  int column(const std::string& name) const {
    auto it = std::find(in.workloads.begin(), in.workloads.end(), name);
    return it == in.workloads.end() ? -1 : static_cast<int>(it - in.workloads.begin());
  }
  bool is_variant(size_t w) const { return in.base_of.count(in.workloads[w]) > 0; }
};

// Scored columns: base workloads, plus the base of any held-out variant even if nobody ran it.
// Without held-out variants, a variant's cells say why they do not count.
std::vector<std::string> scored_columns(Cells& c) {
  std::vector<std::string> bases;
  for (size_t w = 0; w < c.workloads(); ++w) {
    if (!c.is_variant(w)) bases.push_back(c.in.workloads[w]);
  }
  for (size_t w = 0; w < c.workloads(); ++w) {
    if (!c.is_variant(w)) continue;
    if (!c.in.held_out_variants) {
      for (size_t s = 0; s < c.submissions(); ++s)
        c.reason[s][w] = "not scored: a variant, and these rules have no held-out variants";
      continue;
    }
    const std::string& base = c.in.base_of.at(c.in.workloads[w]);
    if (std::find(bases.begin(), bases.end(), base) == bases.end()) bases.push_back(base);
  }
  return bases;
}

// 1. A held-out variant counts only where its base workload reached the target.
void cut_variants_of_unreached_bases(Cells& c) {
  for (size_t w = 0; w < c.workloads(); ++w) {
    if (!c.is_variant(w)) continue;
    const int b = c.column(c.in.base_of.at(c.in.workloads[w]));
    for (size_t s = 0; s < c.submissions(); ++s) {
      if ((b < 0 || std::isinf(c.t[s][b])) && !std::isinf(c.t[s][w])) {
        c.t[s][w] = kInfinity;
        c.reason[s][w] = "cut: base workload " + c.in.base_of.at(c.in.workloads[w]) + " not reached";
      }
    }
  }
}

// 2. The 4x cut-off, on every column.
void apply_cutoff(Cells& c) {
  for (size_t w = 0; w < c.workloads(); ++w) {
    double best = kInfinity;
    for (size_t s = 0; s < c.submissions(); ++s) best = std::min(best, c.t[s][w]);
    for (size_t s = 0; s < c.submissions(); ++s) {
      if (!std::isinf(c.t[s][w]) && c.t[s][w] > kMaxTau * best) {
        c.reason[s][w] = format_cut(c.t[s][w], best);
        c.t[s][w] = kInfinity;
      }
    }
  }
}

// 3. A base workload counts only where its held-out variant reached the target (after step 2).
void cut_bases_of_unreached_variants(Cells& c) {
  for (size_t w = 0; w < c.workloads(); ++w) {
    if (!c.is_variant(w)) continue;
    const int b = c.column(c.in.base_of.at(c.in.workloads[w]));
    if (b < 0) continue;
    for (size_t s = 0; s < c.submissions(); ++s) {
      if (std::isinf(c.t[s][w]) && !std::isinf(c.t[s][b])) {
        c.t[s][b] = kInfinity;
        c.reason[s][b] = "cut: held-out variant " + c.in.workloads[w] + " not within the rules (" +
                         (c.reason[s][w].empty() ? "not reached" : c.reason[s][w]) + ")";
      }
    }
  }
}

// 4.-5. Ratios to the fastest, profiles and the score over the base columns.
void score_columns(const Cells& c, ProfileResult& out) {
  const size_t S = c.submissions(), B = out.base_workloads.size();
  out.scored.assign(S, std::vector<double>(B, kInfinity));
  out.ratio.assign(S, std::vector<double>(B, kInfinity));
  for (size_t b = 0; b < B; ++b) {
    const int w = c.column(out.base_workloads[b]);
    if (w < 0) continue;  // a base nobody ran: inf for everyone, still counted in the denominator
    double best = kInfinity;
    for (size_t s = 0; s < S; ++s) best = std::min(best, c.t[s][w]);
    for (size_t s = 0; s < S; ++s) {
      out.scored[s][b] = c.t[s][w];
      // A zero fastest time (a degenerate log) would give 0/0: only equal times count then.
      if (!std::isinf(c.t[s][w])) out.ratio[s][b] = best > 0 ? c.t[s][w] / best : (c.t[s][w] == 0 ? 1.0 : kInfinity);
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
}

}  // namespace

ProfileResult compute_performance_profiles(const ProfileInput& in) {
  const size_t S = in.submissions.size(), W = in.workloads.size();
  if (in.times.size() != S) throw Error("performance profiles: times has the wrong number of rows");
  ProfileResult out;
  out.reason.assign(S, std::vector<std::string>(W));
  Cells cells{in, std::vector<std::vector<double>>(S, std::vector<double>(W, kInfinity)), out.reason};
  for (size_t s = 0; s < S; ++s) {
    for (size_t w = 0; w < W; ++w) {
      const auto& v = in.times[s][w];
      if (!v) out.reason[s][w] = "missing: no logs";
      else if (std::isinf(*v)) out.reason[s][w] = "not reached";
      else cells.t[s][w] = *v;
    }
  }
  out.base_workloads = scored_columns(cells);
  if (in.held_out_variants) cut_variants_of_unreached_bases(cells);  // 1.
  apply_cutoff(cells);                                               // 2.
  if (in.held_out_variants) cut_bases_of_unreached_variants(cells);  // 3.
  score_columns(cells, out);                                         // 4.-5.
  return out;
}

}  // namespace pacer
