#include "catalog/trial_spec.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_input.h"

namespace pacer {

void validate_eval_steps(const std::vector<int64_t>& steps) {
  // The loop looks the steps up by binary search.
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] < 1 || (i > 0 && steps[i] <= steps[i - 1])) {
      throw InputError("eval steps must be positive and strictly increasing (at position " + std::to_string(i) + ")");
    }
  }
}

void TrialSpec::validate() const {
  validate_eval_steps(eval_at_steps);
  if (eval_every_steps < 0) throw InputError("eval every: must not be negative");
  if (max_steps < 0) throw InputError("max steps: must not be negative");
  if (batch_size && *batch_size <= 0) throw InputError("batch size must be positive");
  if (time_budget && !(*time_budget > 0)) throw InputError("time budget must be positive");
  if (budget_multiplier && !(*budget_multiplier > 0)) throw InputError("budget multiplier must be positive");
  if (noise_scale_shards < 0) throw InputError("noise scale shards: must not be negative");
  data_parallel.validate();
}

std::string TrialSpec::describe_eval_cadence(const WorkloadSpec& workload) const {
  if (!eval_at_steps.empty()) {
    return std::to_string(eval_at_steps.size()) + " given steps up to " + std::to_string(eval_at_steps.back());
  }
  if (eval_every_steps > 0) return "every " + std::to_string(eval_every_steps) + " steps";
  return "every " + std::to_string(workload.eval_period_sec) + " s";
}

std::string TrialSpec::to_json() const {
  nlohmann::ordered_json j;
  j["device"] = device;
  j["data_dir"] = data_dir;
  j["eval_every_steps"] = eval_every_steps;
  j["max_steps"] = max_steps;
  j["batch_size"] = batch_size ? nlohmann::ordered_json(*batch_size) : nlohmann::ordered_json();
  j["time_budget"] = time_budget ? nlohmann::ordered_json(*time_budget) : nlohmann::ordered_json();
  j["budget_multiplier"] = budget_multiplier.value_or(1.0);  // the stored form: always a number
  j["stop_at_targets"] = stop_at_targets;
  if (noise_scale_shards > 0) j["noise_scale_shards"] = noise_scale_shards;
  if (goal) j["goal"] = {{"metric", goal->metric}, {"value", goal->value}, {"higher_is_better", goal->higher_is_better}};
  if (!data_parallel.combine.empty()) {
    j["combine"] = data_parallel.combine;
    j["virtual_workers"] = data_parallel.virtual_workers;
    j["combine_deltas"] = data_parallel.combine_deltas;
  }
  if (!eval_at_steps.empty()) j["eval_at_steps"] = eval_at_steps;
  if (!eval_splits.empty()) {
    auto& splits = j["eval_splits"] = nlohmann::ordered_json::array();
    for (EvalSplit split : eval_splits) splits.push_back(to_string(split));
  }
  if (!workload_options.empty()) j["workload_options"] = workload_options;
  if (clock != ClockKind::wall) j["clock"] = to_string(clock);
  return j.dump();
}

TrialSpec TrialSpec::from_json(const std::string& text) {
  check_json_input(text, "study store: trial settings");
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw Error("study store: malformed trial settings: " + text);
  TrialSpec s;
  try {
    s.device = j.at("device").get<std::string>();
    s.data_dir = j.at("data_dir").get<std::string>();
    s.eval_every_steps = j.at("eval_every_steps").get<int64_t>();
    s.max_steps = j.at("max_steps").get<int64_t>();
    if (!j.at("batch_size").is_null()) s.batch_size = j.at("batch_size").get<int64_t>();
    if (!j.at("time_budget").is_null()) s.time_budget = j.at("time_budget").get<double>();
    s.budget_multiplier = j.at("budget_multiplier").get<double>();
    s.stop_at_targets = j.at("stop_at_targets").get<bool>();
    if (j.contains("noise_scale_shards")) s.noise_scale_shards = j.at("noise_scale_shards").get<int>();
    if (j.contains("goal")) {
      const auto& g = j.at("goal");
      s.goal = TrainingGoal{g.at("metric").get<std::string>(), g.at("value").get<double>(),
                            g.at("higher_is_better").get<bool>()};
    }
    if (j.contains("combine")) {
      s.data_parallel.combine = j.at("combine").get<std::string>();
      s.data_parallel.virtual_workers = j.at("virtual_workers").get<int>();
      s.data_parallel.combine_deltas = j.at("combine_deltas").get<bool>();
    }
    if (j.contains("eval_at_steps")) s.eval_at_steps = j.at("eval_at_steps").get<std::vector<int64_t>>();
    if (j.contains("eval_splits")) {
      for (const auto& name : j.at("eval_splits")) s.eval_splits.push_back(parse_eval_split(name.get<std::string>()));
    }
    if (j.contains("workload_options")) s.workload_options = j.at("workload_options").get<WorkloadOptions>();
    if (j.contains("clock")) s.clock = parse_clock_kind(j.at("clock").get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("study store: malformed trial settings: ") + e.what());
  }
  return s;
}

}  // namespace pacer
