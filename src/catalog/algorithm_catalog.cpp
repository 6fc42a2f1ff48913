#include "catalog/algorithm_catalog.h"

#include <cmath>
#include <sstream>

#include "catalog/plugin_records.h"
#include "core/hyperparameter_json.h"

namespace pacer {
namespace {

nlohmann::ordered_json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }

}  // namespace

std::string algorithm_catalog_text(const std::vector<AlgorithmInfo>& infos) {
  std::ostringstream s;
  s << "Algorithms\n";
  for (const auto& info : infos) {
    const LoadedPlugin* plugin = plugin_of(info.name);
    s << "  " << info.name << std::string(info.name.size() < 10 ? 10 - info.name.size() : 0, ' ') << " "
      << info.description << (plugin ? " [plugin " + plugin->path + "]" : "") << "\n";
    for (const auto& hp : info.hyperparameters) {
      s << "      " << hp.name << " = ";
      if (!hp.default_value) s << "(required)";
      else if (hp.default_value->kind() == HyperparameterValue::Kind::number) s << hp.default_value->number();
      else s << hp.default_value->json();
      s << "  in " << hp.range_text() << "  " << hp.description << "\n";
    }
  }
  return s.str();
}

nlohmann::ordered_json algorithm_catalog_json(const std::vector<AlgorithmInfo>& infos) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& info : infos) {
    nlohmann::ordered_json j{{"name", info.name}, {"description", info.description}};
    const LoadedPlugin* plugin = plugin_of(info.name);
    j["plugin"] = plugin ? nlohmann::ordered_json(plugin->path) : nlohmann::ordered_json();
    auto hps = nlohmann::ordered_json::array();
    for (const auto& hp : info.hyperparameters) {
      hps.push_back({{"name", hp.name},
                     {"default", hp.default_value ? value_json(*hp.default_value) : nlohmann::ordered_json()},
                     {"min", finite_or_null(hp.min)},
                     {"max", finite_or_null(hp.max)},
                     {"min_excluded", hp.min_excluded},
                     {"max_excluded", hp.max_excluded},
                     {"description", hp.description}});
      if (hp.any_scalar) hps.back()["any_scalar"] = true;  // only then: the built-ins' entries stay as they were
    }
    j["hyperparameters"] = hps;
    out.push_back(j);
  }
  return out;
}

}  // namespace pacer
