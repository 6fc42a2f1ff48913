#include "catalog/workload_options.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "catalog/workload_spec.h"

namespace pacer {

std::string WorkloadOptionSpec::describe() const {
  std::string values;
  if (kind == Kind::choice) {
    for (const auto& c : choices) values += (values.empty() ? "" : "|") + c;
  } else {
    values = "integer " + std::to_string(min) + ".." + std::to_string(max);
  }
  return name + ": " + values + " (default " + default_value + ")" + (description.empty() ? "" : ": " + description);
}

WorkloadOptions parse_workload_options(const std::vector<std::string>& items) {
  WorkloadOptions options;
  for (const auto& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw InputError("workload option '" + item + "': expected NAME=VALUE, e.g. activation=tanh");
    }
    const std::string name = item.substr(0, eq);
    if (!options.emplace(name, item.substr(eq + 1)).second) {
      throw InputError("workload option '" + name + "' is given twice");
    }
  }
  return options;
}

std::string to_string(const WorkloadOptions& options) {
  std::string out;
  for (const auto& [name, value] : options) out += (out.empty() ? "" : ",") + name + "=" + value;
  return out;
}

const WorkloadOptionSpec* WorkloadSpec::option(const std::string& option_name) const {
  for (const auto& o : options)
    if (o.name == option_name) return &o;
  return nullptr;
}

void WorkloadSpec::validate_options(const WorkloadOptions& given) const {
  for (const auto& [key, value] : given) {
    const WorkloadOptionSpec* o = option(key);
    if (!o) {
      std::string names;
      for (const auto& d : options) names += (names.empty() ? "" : ", ") + d.name;
      throw InputError("workload '" + name + "' has no option '" + key + "' (options: " +
                       (names.empty() ? "none" : names) + ")");
    }
    if (o->kind == WorkloadOptionSpec::Kind::choice) {
      if (std::find(o->choices.begin(), o->choices.end(), value) == o->choices.end()) {
        throw InputError("workload '" + name + "': option " + o->describe() + "; got '" + value + "'");
      }
      continue;
    }
    const bool digits = !value.empty() && std::all_of(value.begin(), value.end(), [](unsigned char c) {
      return std::isdigit(c) != 0;
    });
    int64_t v = -1;
    if (digits && value.size() <= 12) v = std::stoll(value);
    if (v < o->min || v > o->max) {
      throw InputError("workload '" + name + "': option " + o->describe() + "; got '" + value + "'");
    }
  }
}

}  // namespace pacer
