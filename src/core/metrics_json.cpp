#include "core/metrics_json.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_input.h"

namespace pacer {

std::string metrics_to_json(const Metrics& metrics) {
  // nlohmann writes a non-finite number as null.
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, value] : metrics) j[name] = value;
  return j.dump();
}

Metrics metrics_from_json(const std::string& text, const std::string& origin) {
  check_json_input(text, origin);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw InputError(origin + ": the metrics are not a JSON object");
  Metrics metrics;
  for (const auto& [name, value] : j.items()) {
    if (value.is_number()) metrics[name] = value.get<double>();
    else if (value.is_null()) metrics[name] = NAN;
  }
  return metrics;
}

}  // namespace pacer
