#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "algorithms/plugin_loader.h"
#include "algorithms/python_submission_loader.h"
#include "algorithms/registry.h"
#include "commands.h"
#include "workloads/registry.h"
#include "workloads/suites.h"

namespace pacer::cli {
namespace {

nlohmann::ordered_json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }

nlohmann::ordered_json workloads_json() {
  auto out = nlohmann::ordered_json::array();
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
    j["max_runtime_sec"] = s.max_runtime_sec;
    j["step_hint"] = s.step_hint;
    j["eval_period_sec"] = s.eval_period_sec;
    j["batch_size"] = s.reference_batch_size;
    j["targets_source"] = s.targets_source;
    j["metrics"] = s.metrics;
    auto options = nlohmann::ordered_json::array();
    for (const auto& o : s.options) {
      nlohmann::ordered_json oj{{"name", o.name}, {"default", o.default_value}, {"description", o.description}};
      if (o.kind == WorkloadOptionSpec::Kind::choice) {
        oj["choices"] = o.choices;
      } else {
        oj["min"] = o.min;
        oj["max"] = o.max;
      }
      options.push_back(oj);
    }
    j["options"] = options;
    out.push_back(j);
  }
  return out;
}

nlohmann::ordered_json algorithms_json(const std::vector<AlgorithmInfo>& infos) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& info : infos) {
    nlohmann::ordered_json j{{"name", info.name}, {"description", info.description}};
    const LoadedPlugin* plugin = plugin_of(info.name);
    j["plugin"] = plugin ? nlohmann::ordered_json(plugin->path) : nlohmann::ordered_json();
    auto hps = nlohmann::ordered_json::array();
    for (const auto& hp : info.hyperparameters) {
      // An unbounded end is null (JSON has no infinity); excluded ends are flagged.
      hps.push_back({{"name", hp.name},
                     {"default", hp.default_value ? nlohmann::ordered_json(*hp.default_value) : nlohmann::ordered_json()},
                     {"min", finite_or_null(hp.min)},
                     {"max", finite_or_null(hp.max)},
                     {"min_excluded", hp.min_excluded},
                     {"max_excluded", hp.max_excluded},
                     {"description", hp.description}});
    }
    j["hyperparameters"] = hps;
    out.push_back(j);
  }
  return out;
}

}  // namespace

Action add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>("all");
  auto plugins = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  app.add_option("what", *what, "What to list")->check(CLI::IsMember({"all", "workloads", "algorithms"}));
  app.add_option("-a,--algorithm", *plugins,
                 "Only these algorithms: names, plugin libraries (./libx.so) or Python submissions (.py), which are loaded and listed");
  app.add_flag("--json", *json, "Machine-readable output: {workloads, suites, algorithms}");
  return [what, plugins, json] {
    std::vector<std::string> only;  // the algorithms of -a (a library may define several)
    for (const auto& value : *plugins) {
      if (is_plugin_reference(value) && value.find(".so:") == std::string::npos && !is_python_submission(value)) {
        const LoadedPlugin& plugin = load_algorithm_plugin(value);
        only.insert(only.end(), plugin.algorithms.begin(), plugin.algorithms.end());
      } else {
        only.push_back(resolve_algorithm(value));
      }
    }
    if (!only.empty()) *what = "algorithms";
    if (*json) {
      nlohmann::ordered_json j;
      if (*what == "all" || *what == "workloads") {
        j["workloads"] = workloads_json();
        auto suites = nlohmann::ordered_json::array();
        for (const auto& suite : workload_suites()) {
          suites.push_back({{"name", suite.name}, {"description", suite.description}, {"workloads", suite.workloads}});
        }
        j["suites"] = suites;
      }
      if (*what == "all" || *what == "algorithms") {
        std::vector<AlgorithmInfo> infos;
        if (only.empty()) infos = algorithm_infos();
        for (const auto& name : only) infos.push_back(algorithm_info(name));
        j["algorithms"] = algorithms_json(infos);
      }
      std::printf("%s\n", j.dump(2).c_str());
      return 0;
    }
    if (*what == "all" || *what == "workloads") {
      std::printf("Workloads\n");
      std::printf("  %-28s %-21s %-9s %-4s %8s %8s %8s %9s %6s %5s  %s\n", "name", "modality", "metric", "goal",
                  "val", "test", "budget_s", "step_hint", "eval_s", "batch", "variant of");
      for (const auto& s : workload_specs()) {
        std::printf("  %-28s %-21s %-9s %-4s %8.4f %8.4f %8.0f %9lld %6.2g %5lld  %s\n", s.name.c_str(),
                    s.modality.c_str(), s.target_metric.c_str(), s.higher_is_better ? "max" : "min",
                    s.validation_target, s.test_target,
                    s.max_runtime_sec, static_cast<long long>(s.step_hint), s.eval_period_sec,
                    static_cast<long long>(s.reference_batch_size), s.is_variant() ? s.base_workload.c_str() : "-");
      }
      for (const auto& s : workload_specs()) {
        std::string variants;
        for (const auto& v : workload_variants(s.name)) variants += (variants.empty() ? "" : ", ") + v;
        std::printf("    %-26s %s%s\n", s.name.c_str(), s.description.c_str(),
                    variants.empty() ? "" : ("; variants: " + variants).c_str());
        for (const auto& o : s.options) std::printf("      --workload-option %s\n", o.describe().c_str());
      }
      std::printf("  suites (pacer tune --suite NAME)\n");
      for (const auto& suite : workload_suites()) {
        std::string names;
        for (const auto& w : suite.workloads) names += (names.empty() ? "" : ", ") + w;
        std::printf("    %-20s %s: %s\n", suite.name.c_str(), suite.description.c_str(), names.c_str());
      }
    }
    if (*what == "all") std::printf("\n");
    if (*what == "all" || *what == "algorithms") {
      std::printf("Algorithms\n");
      std::vector<AlgorithmInfo> infos;
      if (only.empty()) infos = algorithm_infos();
      for (const auto& name : only) infos.push_back(algorithm_info(name));
      for (const auto& info : infos) {
        const LoadedPlugin* plugin = plugin_of(info.name);
        std::printf("  %-10s %s%s\n", info.name.c_str(), info.description.c_str(),
                    plugin ? (" [plugin " + plugin->path + "]").c_str() : "");
        for (const auto& hp : info.hyperparameters) {
          std::ostringstream line;
          line << "      " << hp.name << " = ";
          if (hp.default_value) line << *hp.default_value; else line << "(required)";
          line << "  in " << hp.range_text() << "  " << hp.description;
          std::printf("%s\n", line.str().c_str());
        }
      }
    }
    return 0;
  };
}

}  // namespace pacer::cli
