// pacer list [workloads|algorithms] [-a ALGORITHM...] [--json]: the workloads, suites and
// algorithms (with plugin libraries and Python submissions loaded), from their catalogs.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "catalog/algorithm_catalog.h"
#include "catalog/algorithm_infos.h"
#include "catalog/algorithm_reference.h"
#include "catalog/workload_catalog.h"
#include "commands.h"
#include "training_layer.h"

namespace pacer::cli {
namespace {

std::vector<AlgorithmInfo> catalog_infos(const std::vector<std::string>& names) {
  if (names.empty()) return algorithm_infos();
  std::vector<AlgorithmInfo> infos;
  for (const auto& name : names) infos.push_back(algorithm_info(name));
  return infos;
}

}  // namespace

Action add_list_command(CLI::App& app, const CommandContext& context) {
  auto what = std::make_shared<std::string>("all");
  auto named = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  app.add_option("what", *what, "What to list")->check(CLI::IsMember({"all", "workloads", "algorithms"}));
  app.add_option("-a,--algorithm", *named,
                 "Only these algorithms: names, plugin libraries (./libx.so) or Python submissions (.py), which are loaded and listed");
  app.add_flag("--json", *json, "Machine-readable output: {workloads, suites, algorithms}");
  return [what, named, json, training = context.training]() -> Outcome {
    // Names are the catalog's; a plugin or a Python submission is loaded by the training layer.
    if (!training)
      for (const auto& value : *named)
        if (algorithm_reference(value).names_a_file())
          return Outcome::hand_on("'" + value + "' is loaded by the training program");
    const std::vector<AlgorithmInfo> infos = training ? training->algorithm_infos(*named) : catalog_infos(*named);
    if (!named->empty()) *what = "algorithms";
    const bool workloads = *what == "all" || *what == "workloads", algorithms = *what == "all" || *what == "algorithms";
    if (*json) {
      nlohmann::ordered_json j = workloads ? workload_catalog_json() : nlohmann::ordered_json::object();
      if (algorithms) j["algorithms"] = algorithm_catalog_json(infos);
      std::printf("%s\n", j.dump(2).c_str());
      return 0;
    }
    if (workloads) std::fputs(workload_catalog_text().c_str(), stdout);
    if (workloads && algorithms) std::printf("\n");
    if (algorithms) std::fputs(algorithm_catalog_text(infos).c_str(), stdout);
    return 0;
  };
}

}  // namespace pacer::cli
