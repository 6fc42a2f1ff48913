#include "probe/stability_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/format.h"

namespace pacer {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::vector<int64_t> detect_loss_spikes(const std::vector<double>& losses, const StabilityRules& rules) {
  std::vector<int64_t> spikes;
  const size_t w = static_cast<size_t>(std::max(1, rules.spike_window));
  for (size_t t = w; t < losses.size(); ++t) {
    if (!std::isfinite(losses[t])) {
      spikes.push_back(static_cast<int64_t>(t));
      continue;
    }
    std::vector<double> before(losses.begin() + static_cast<std::ptrdiff_t>(t - w),
                               losses.begin() + static_cast<std::ptrdiff_t>(t));
    before.erase(std::remove_if(before.begin(), before.end(), [](double x) { return !std::isfinite(x); }),
                 before.end());
    if (before.empty()) continue;
    if (losses[t] > rules.spike_factor * median_of(before)) spikes.push_back(static_cast<int64_t>(t));
  }
  return spikes;
}

RunAssessment assess_run(const StabilityRun& run, const StabilityRules& rules) {
  RunAssessment a;
  a.spikes = detect_loss_spikes(run.losses, rules);
  if (run.grad_clip > 0.0 && !run.grad_norms.empty()) {
    size_t clipped = 0;
    for (double n : run.grad_norms) clipped += n > run.grad_clip;
    a.clipped_fraction = static_cast<double>(clipped) / static_cast<double>(run.grad_norms.size());
  }
  if (run.losses.empty()) {
    a.reason = run.diverged ? "diverged: " + run.message : "no steps";
    return a;
  }
  a.initial_loss = run.losses.front();
  a.max_loss = -std::numeric_limits<double>::infinity();
  for (double l : run.losses) a.max_loss = std::max(a.max_loss, std::isfinite(l) ? l : std::numeric_limits<double>::infinity());
  const size_t tail = std::max<size_t>(1, run.losses.size() / 10);
  double sum = 0.0;
  for (size_t i = run.losses.size() - tail; i < run.losses.size(); ++i) sum += run.losses[i];
  a.final_loss = sum / static_cast<double>(tail);
  if (run.diverged || !std::isfinite(a.final_loss)) {
    a.reason = "diverged" + (run.message.empty() ? std::string() : ": " + run.message);
  } else if (a.max_loss > rules.blowup_factor * a.initial_loss) {
    a.reason = "loss blew up to " + format_4g(a.max_loss) + " (" + format_4g(a.max_loss / a.initial_loss) + "x the first step's)";
  } else if (!(a.final_loss < a.initial_loss)) {
    a.reason = "no progress: final loss " + format_4g(a.final_loss) + " vs " + format_4g(a.initial_loss) + " at the first step";
  } else {
    a.stable = true;
    a.reason = "stable";
  }
  return a;
}

double percentile(std::vector<double> values, double q) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double x) { return !std::isfinite(x); }), values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(values.size() - 1, lo + 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

LearningRateVerdict learning_rate_verdict(const std::vector<StabilityRun>& runs, const StabilityRules& rules) {
  std::vector<const StabilityRun*> sorted;
  for (const auto& r : runs) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const StabilityRun* a, const StabilityRun* b) { return a->learning_rate < b->learning_rate; });
  LearningRateVerdict v;
  double best_loss = std::numeric_limits<double>::infinity();
  bool stable_so_far = true;
  for (const StabilityRun* r : sorted) {
    const RunAssessment a = assess_run(*r, rules);
    if (a.stable && a.final_loss < best_loss) best_loss = a.final_loss, v.best = r->learning_rate;
    if (!stable_so_far) continue;
    if (a.stable) {
      v.largest_stable = r->learning_rate;
    } else {
      stable_so_far = false;
      v.divergence_point = r->learning_rate;
      v.explanation = "learning rate " + format_4g(r->learning_rate) + " is unstable (" + a.reason + ")";
    }
  }
  if (sorted.empty()) {
    v.explanation = "no runs";
  } else if (!v.largest_stable) {
    v.explanation = "even the smallest learning rate tried is unstable: " + v.explanation;
  } else if (!v.divergence_point) {
    v.explanation = "every learning rate tried is stable, up to " + format_4g(*v.largest_stable) +
                    "; sweep higher to find the divergence point";
  } else {
    v.explanation = "largest stable learning rate " + format_4g(*v.largest_stable) + "; " + v.explanation;
  }
  return v;
}

}  // namespace pacer
