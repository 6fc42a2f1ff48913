#pragma once
// Performance profiles and the benchmark score (docs/algoperf.md section 4), from the per-workload
// times T[s][w] (median over studies):
//   1. held-out (v0.5): T[s,variant] = inf where T[s,base] is inf/missing;
//   2. T[s,w] = inf where T[s,w] > 4 x min_s T[s,w] (every column);
//   3. held-out: T[s,base] = inf where T[s,variant] is inf/missing; keep base columns only;
//   4. r = T / min_s T;  rho_s(tau) = #{w: r <= tau} / #base workloads, tau = linspace(1, 4, 100);
//   5. score = trapezoid(rho_s, tau) / 3, in [0, 1].
//
//   pacer::ProfileInput in;  // submissions, workloads, base_of, times (nullopt = missing)
//   pacer::ProfileResult p = pacer::compute_performance_profiles(in);
//   double s = p.score[0];
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pacer {

struct ProfileInput {
  std::vector<std::string> submissions;
  std::vector<std::string> workloads;              // columns: base workloads and variants
  std::map<std::string, std::string> base_of;      // variant -> base workload
  bool held_out_variants = false;                  // rules v0.5; otherwise variants are not scored
  // times[s][w]: nullopt = the submission has no logs for the workload; inf = not reached.
  std::vector<std::vector<std::optional<double>>> times;
};

struct ProfileResult {
  std::vector<std::string> base_workloads;    // the scored columns
  std::vector<std::vector<double>> scored;    // [s][base w] time after the cut-offs (inf = cut)
  std::vector<std::vector<double>> ratio;     // [s][base w] scored / fastest (inf when cut)
  // [s][w] over the input columns: empty when the time counts, else why it does not.
  std::vector<std::vector<std::string>> reason;
  std::vector<double> tau;
  std::vector<std::vector<double>> rho;       // [s][k] fraction of base workloads within tau_k
  std::vector<double> score;                  // [s]
};

constexpr double kMaxTau = 4.0;
std::vector<double> tau_grid();  // numpy.linspace(1, 4, 100), bit for bit
double profile_area(const std::vector<double>& rho, const std::vector<double>& tau);  // trapezoid / (4 - 1)

ProfileResult compute_performance_profiles(const ProfileInput& input);

}  // namespace pacer
