// pacer list [workloads|algorithms] [-a ALGORITHM...] [--json]: the workloads, suites and
// algorithms (with plugin libraries and Python submissions loaded), from their catalogs.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "catalog/algorithm_catalog.h"
#include "catalog/workload_catalog.h"
#include "commands.h"

namespace pacer::cli {

Action add_list_command(CLI::App& app, AlgorithmInfosOf infos_of) {
  auto what = std::make_shared<std::string>("all");
  auto named = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  app.add_option("what", *what, "What to list")->check(CLI::IsMember({"all", "workloads", "algorithms"}));
  app.add_option("-a,--algorithm", *named,
                 "Only these algorithms: names, plugin libraries (./libx.so) or Python submissions (.py), which are loaded and listed");
  app.add_flag("--json", *json, "Machine-readable output: {workloads, suites, algorithms}");
  return [what, named, json, infos_of] {
    const std::vector<AlgorithmInfo> infos = infos_of(*named);
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
