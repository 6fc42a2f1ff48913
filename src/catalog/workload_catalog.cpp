#include "catalog/workload_catalog.h"

#include <cstdio>

#include "catalog/workload_specs.h"
#include "catalog/suites.h"

namespace pacer {
namespace {

nlohmann::ordered_json option_json(const WorkloadOptionSpec& o) {
  nlohmann::ordered_json j{{"name", o.name}, {"default", o.default_value}, {"description", o.description}};
  if (o.kind == WorkloadOptionSpec::Kind::choice) {
    j["choices"] = o.choices;
  } else {
    j["min"] = o.min;
    j["max"] = o.max;
  }
  return j;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

nlohmann::ordered_json workload_catalog_json() {
  auto workloads = nlohmann::ordered_json::array();
  for (const auto& s : workload_specs()) {
    nlohmann::ordered_json j;
    j["name"] = s.name;
    j["description"] = s.description;
    j["modality"] = s.modality;
    j["variant_of"] = s.is_variant() ? nlohmann::ordered_json(s.base_workload) : nlohmann::ordered_json();
    j["variants"] = workload_variants(s.name);
    j["metric"] = s.target_metric;
    j["goal"] = s.higher_is_better ? "maximize" : "minimize";
    j["validation_target"] = s.validation_target;
    j["test_target"] = s.test_target;
    j["time_budget"] = s.time_budget;
    j["step_hint"] = s.step_hint;
    j["eval_period_sec"] = s.eval_period_sec;
    j["batch_size"] = s.reference_batch_size;
    j["targets_source"] = s.targets_source;
    j["metrics"] = s.metrics;
    j["options"] = nlohmann::ordered_json::array();
    for (const auto& o : s.options) j["options"].push_back(option_json(o));
    workloads.push_back(j);
  }
  auto suites = nlohmann::ordered_json::array();
  for (const auto& suite : workload_suites())
    suites.push_back({{"name", suite.name}, {"description", suite.description}, {"workloads", suite.workloads}});
  return {{"workloads", workloads}, {"suites", suites}};
}

std::string workload_catalog_text() {
  char line[1024];
  std::string s = "Workloads\n";
  std::snprintf(line, sizeof line, "  %-28s %-21s %-9s %-4s %8s %8s %8s %9s %6s %5s  %s\n", "name", "modality", "metric",
                "goal", "val", "test", "budget_s", "step_hint", "eval_s", "batch", "variant of");
  s += line;
  for (const auto& w : workload_specs()) {
    std::snprintf(line, sizeof line, "  %-28s %-21s %-9s %-4s %8.4f %8.4f %8.0f %9lld %6.2g %5lld  %s\n", w.name.c_str(),
                  w.modality.c_str(), w.target_metric.c_str(), w.higher_is_better ? "max" : "min", w.validation_target,
                  w.test_target, w.time_budget, static_cast<long long>(w.step_hint), w.eval_period_sec,
                  static_cast<long long>(w.reference_batch_size), w.is_variant() ? w.base_workload.c_str() : "-");
    s += line;
  }
  for (const auto& w : workload_specs()) {
    const std::string variants = joined(workload_variants(w.name));
    s += "    " + w.name + std::string(w.name.size() < 26 ? 26 - w.name.size() : 0, ' ') + " " + w.description +
         (variants.empty() ? "" : "; variants: " + variants) + "\n";
    for (const auto& o : w.options) s += "      --workload-option " + o.describe() + "\n";
  }
  s += "  suites (pacer tune --suite NAME)\n";
  for (const auto& suite : workload_suites()) {
    s += "    " + suite.name + std::string(suite.name.size() < 20 ? 20 - suite.name.size() : 0, ' ') + " " +
         suite.description + ": " + joined(suite.workloads) + "\n";
  }
  return s;
}

}  // namespace pacer
