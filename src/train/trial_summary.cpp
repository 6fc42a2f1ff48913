#include "train/trial_summary.h"

#include <cstdarg>
#include <cstdio>

namespace pacer {
namespace {

std::string line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return std::string(buffer) + "\n";
}

std::string seconds_or_not(const std::optional<double>& v) {
  if (!v) return "not reached";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f s", *v);
  return buffer;
}

}  // namespace

std::string trial_summary(const TrialResult& r, const WorkloadSpec& spec, const std::string& out_dir) {
  const std::string time_to_target = seconds_or_not(r.time_to_target);
  const std::string test_time_to_target = seconds_or_not(r.test_time_to_target);
  std::string s = line("status:              %s (%s)", to_string(r.status), to_string(r.stop_reason));
  if (!r.message.empty()) s += line("message:             %s", r.message.c_str());
  s += line("validation target:   %s %s %g", spec.target_metric.c_str(), spec.higher_is_better ? ">=" : "<=",
            spec.validation_target);
  s += line("time to target:      %s", time_to_target.c_str());
  s += line("steps to target:     %s", r.steps_to_target ? std::to_string(*r.steps_to_target).c_str() : "not reached");
  s += line("test time to target: %s", test_time_to_target.c_str());
  if (r.best_validation) {
    s += line("best validation:     %.4f at step %lld", *r.best_validation, static_cast<long long>(r.best_validation_step));
  }
  // %g: a 10.5 s budget is not "10 s"; the clock only when it is not the usual wall clock.
  s += line("steps:               %lld in %.2f s of submission time%s (budget %g s), %.2f s of evals",
            static_cast<long long>(r.steps), r.submission_time,
            r.clock == "wall" ? "" : (" (" + r.clock + " clock)").c_str(), r.time_budget, r.eval_time);
  if (!r.evals.empty()) {
    const auto& m = r.evals.back().metrics;
    if (auto it = m.find("train/noise_scale"); it != m.end()) {
      s += line("noise scale B_simple: %.1f (smoothed, at step %lld)", it->second,
                static_cast<long long>(r.evals.back().step));
    }
  }
  s += out_dir.empty() ? line("results:             not saved (give --out DIR to keep the logs and trial.json)")
                       : line("results:             %s/trial.json", out_dir.c_str());
  return s;
}

}  // namespace pacer
