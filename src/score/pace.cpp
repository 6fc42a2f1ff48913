#include "score/pace.h"

#include <cmath>
#include <limits>
#include <map>

namespace pacer {

std::optional<double> target_seed_sd(const std::string& workload) {
  // Computed from the committed target records; ShippedTargets.SeedSdsAgreeWithTheRecords keeps
  // this table equal to them (a re-set target must update both).
  static const std::map<std::string, double> sds = {
      {"fmnist_cnn", 0.0010},        {"fmnist_mlp", 0.0012},           {"fmnist_mlp_layernorm", 0.0006},
      {"fmnist_mlp_tanh", 0.0011},   {"fmnist_recon", 0.0182},         {"fmnist_recon_layernorm", 0.0160},
      {"fmnist_recon_tanh", 0.0085}, {"fmnist_resnet", 0.0013},        {"fmnist_resnet_large_bn_init", 0.0103},
      {"fmnist_resnet_silu", 0.0004}, {"fmnist_vit", 0.0025},          {"fmnist_vit_glu", 0.0033},
      {"fmnist_vit_post_ln", 0.0043}, {"fortunes_lm", 0.0132},         {"fortunes_lm_glu", 0.0131},
      {"fortunes_lm_rmsnorm", 0.0246}, {"synthetic_regression", 0.0010},
  };
  const auto it = sds.find(workload);
  if (it == sds.end()) return std::nullopt;
  return it->second;
}

double pace_width(const ScoringTarget& target) {
  if (target.seed_sd > 0) return kPaceWidthInSd * target.seed_sd;
  const double relative = kPaceRelativeWidth * std::abs(target.validation_target);
  return relative > 0 ? relative : kPaceRelativeWidth;
}

double trial_pace_cost(const TrialLog& trial, const ScoringTarget& target, TimeAxis axis, double budget, double width) {
  constexpr double kWorst = 1.0 + kPaceMaxGap;
  if (!trial.problem.empty() || !(budget > 0)) return kWorst;
  const std::vector<double>* values = trial.column(target.column());
  const std::vector<double>* times = trial.column(time_column(axis));
  const std::vector<double>* seconds = trial.column(time_column(TimeAxis::seconds));
  if (!values || !times) return kWorst;
  const double sign = target.higher_is_better ? 1.0 : -1.0;  // progress = sign x value
  bool any = false;
  double best = -std::numeric_limits<double>::infinity();   // best progress within the budget
  double last_time = std::numeric_limits<double>::quiet_NaN(), last_value = 0.0;
  for (size_t i = 0; i < values->size() && i < times->size(); ++i) {
    if (target.time_budget > 0 && seconds && i < seconds->size() && (*seconds)[i] > target.time_budget) break;
    const double v = (*values)[i], t = (*times)[i];
    if (!std::isfinite(v) || !std::isfinite(t) || t < 0) continue;
    if (target.reached(v)) {
      // Reached at time 0: no run (trial_time_to_target refuses it; --lenient counts it as never).
      if (t == 0) return kWorst;
      double crossing = t;
      if (std::isfinite(last_time) && v != last_value) {
        crossing = last_time + (t - last_time) * (target.validation_target - last_value) / (v - last_value);
      }
      return std::max(0.0, crossing) / budget;
    }
    any = true;
    best = std::max(best, sign * v);
    last_time = t;
    last_value = v;
  }
  if (!any) return kWorst;
  const double gap = (sign * target.validation_target - best) / width;  // > 0: not reached
  return 1.0 + std::min(gap, kPaceMaxGap);
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (double v : values) sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

}  // namespace pacer
