#include "catalog/training_goal.h"

#include <algorithm>

#include "core/error.h"
#include "core/format.h"

namespace pacer {

bool metric_higher_is_better(const WorkloadSpec& spec, const std::string& name) {
  if (name == spec.target_metric) return spec.higher_is_better;
  for (const char* higher : {"accuracy", "ssim", "mean_average_precision", "bleu"})
    if (name == higher) return true;
  for (const char* lower : {"loss", "ce_loss", "ctc_loss", "perplexity", "ppl", "bits_per_byte", "error_rate", "wer",
                            "grad_norm", "grad_norm_mean", "grad_norm_max"})
    if (name == lower) return false;
  return spec.higher_is_better;
}

void check_goal_is_evaluated(const TrainingGoal& goal, const std::vector<EvalSplit>& splits) {
  const std::string split = goal.metric.substr(0, goal.metric.find('/'));
  if (!splits.empty() && std::find(splits.begin(), splits.end(), parse_eval_split(split)) == splits.end())
    throw InputError("--metric " + goal.metric + ": --eval-splits leaves out " + split + ", so no eval measures it");
}

TrainingGoal resolve_training_goal(const WorkloadSpec& spec, const std::string& metric, std::optional<double> value) {
  TrainingGoal goal;
  goal.metric = metric.empty() ? "validation/" + spec.target_metric : metric;
  if (goal.metric.find('/') == std::string::npos) goal.metric = "validation/" + goal.metric;
  const std::string split_name = goal.metric.substr(0, goal.metric.find('/'));
  const std::string name = goal.metric.substr(goal.metric.find('/') + 1);
  EvalSplit split;
  try {
    split = parse_eval_split(split_name);
  } catch (const InputError& e) {
    throw InputError("--metric " + goal.metric + ": " + e.what());
  }
  if (!spec.metrics.empty()) {
    std::vector<std::string> valid = spec.metrics;
    if (split == EvalSplit::train) {
      for (const char* probe : {"grad_norm", "grad_norm_mean", "grad_norm_max", "noise_scale"}) valid.push_back(probe);
    }
    if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
      std::string names;
      for (const auto& v : valid) names += (names.empty() ? "" : ", ") + v;
      throw InputError("--metric " + goal.metric + ": workload " + spec.name + " reports no '" + name +
                       "' (its metrics: " + names + ")");
    }
  }
  if (!value && name != spec.target_metric) {
    // The workload's target value belongs to its target metric: an accuracy's 0.895 as a loss goal
    // would be reached, or missed, for no reason the user chose.
    throw InputError("--metric " + goal.metric + ": give its value with --goal (the workload's target, " +
                     format_double("%g", spec.validation_target) + ", is on " + spec.target_metric + ")");
  }
  goal.value = value.value_or(spec.validation_target);
  goal.higher_is_better = metric_higher_is_better(spec, name);
  const bool fraction = name == "accuracy" || name == "ssim" || name == "mean_average_precision" || name == "error_rate";
  if (fraction && !(goal.value >= (name == "ssim" ? -1.0 : 0.0) && goal.value <= 1.0)) {
    throw InputError("--goal " + format_double("%g", goal.value) + ": " + name + " lies in [" + (name == "ssim" ? "-1" : "0") +
                     ", 1], so no eval can reach it");
  }
  const bool positive = name == "loss" || name == "ce_loss" || name == "ctc_loss" || name == "perplexity" || name == "ppl" ||
                        name == "bits_per_byte";
  if (positive && goal.value < 0) {
    throw InputError("--goal " + format_double("%g", goal.value) + ": " + name + " is never negative");
  }
  return goal;
}

}  // namespace pacer
