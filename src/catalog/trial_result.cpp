#include "catalog/trial_result.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace pacer {

void compute_targets(const WorkloadSpec& spec, TrialResult& r) {
  const std::string val_key = "validation/" + spec.target_metric;
  const std::string test_key = "test/" + spec.target_metric;
  r.time_to_target.reset();
  r.steps_to_target.reset();
  r.test_time_to_target.reset();
  r.test_steps_to_target.reset();
  r.eval_index_to_target.reset();
  r.best_validation.reset();
  for (size_t i = 0; i < r.evals.size(); ++i) {
    const auto& e = r.evals[i];
    // An eval after the budget ran out does not count (the runner makes none since it stops at the
    // budget; stores and logs written before hold such evals).
    if (r.time_budget > 0 && e.accumulated_submission_time > r.time_budget) break;
    auto v = e.metrics.find(val_key);
    if (v != e.metrics.end() && std::isfinite(v->second)) {
      if (!r.time_to_target && spec.reached(v->second, spec.validation_target, /*strict=*/false)) {
        r.time_to_target = e.accumulated_submission_time;
        r.steps_to_target = e.step;
        r.eval_index_to_target = static_cast<int64_t>(i);
      }
      const bool better = !r.best_validation || (spec.higher_is_better ? v->second > *r.best_validation
                                                                       : v->second < *r.best_validation);
      if (better) {
        r.best_validation = v->second;
        r.best_validation_step = e.step;
      }
    }
    auto t = e.metrics.find(test_key);
    if (t != e.metrics.end() && std::isfinite(t->second) && !r.test_time_to_target &&
        spec.reached(t->second, spec.test_target, /*strict=*/false)) {
      r.test_time_to_target = e.accumulated_submission_time;
      r.test_steps_to_target = e.step;
    }
  }
}

std::string TrialResult::to_json() const {
  nlohmann::ordered_json j;
  auto opt = [](const auto& o) { return o ? nlohmann::ordered_json(*o) : nlohmann::ordered_json(nullptr); };
  j["status"] = pacer::to_string(status);
  j["stop_reason"] = to_string(stop_reason);
  if (!message.empty()) j["message"] = message;
  j["workload"] = workload;
  j["algorithm"] = algorithm;
  j["seed"] = std::to_string(seed);  // 64-bit: a string, exact in every JSON reader (2^53 limits doubles)
  j["batch_size"] = batch_size;
  j["time_budget"] = time_budget;
  j["clock"] = clock;
  j["threads"] = threads;
  j["device"] = device;
  if (!restrictions.empty()) j["restrictions"] = restrictions;
  j["time_to_target"] = opt(time_to_target);
  j["steps_to_target"] = opt(steps_to_target);
  j["eval_index_to_target"] = opt(eval_index_to_target);
  j["test_time_to_target"] = opt(test_time_to_target);
  j["test_steps_to_target"] = opt(test_steps_to_target);
  j["best_validation"] = opt(best_validation);
  j["best_validation_step"] = best_validation_step;
  j["steps"] = steps;
  j["accumulated_submission_time"] = submission_time;
  j["accumulated_eval_time"] = eval_time;
  j["accumulated_logging_time"] = logging_time;
  j["total_duration"] = total_duration;
  j["diverged"] = diverged();
  j["num_evals"] = evals.size();
  return j.dump(2);
}

}  // namespace pacer
