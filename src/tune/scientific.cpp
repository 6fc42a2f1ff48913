#include "tune/scientific.h"

#include <algorithm>
#include <cmath>

#include "catalog/algorithm_infos.h"
#include "core/error.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

double number_of(const std::string& name, const std::string& value) {
  size_t used = 0;
  double v = 0.0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || !std::isfinite(v)) {
    throw InputError("--scientific " + name + ": '" + value + "' is not a number (" + name +
                     " is a hyperparameter of the algorithm)");
  }
  return v;
}

// The space with `name` held at `value`: a single feasible point in place of its range (same
// position, so the other dimensions keep their quasi-random coordinates), or set in every point.
SearchSpace fix_in_space(SearchSpace space, const std::string& name, double value) {
  if (space.is_list()) {
    for (auto& point : space.fixed_points) point.set(name, value);
    return space;
  }
  SearchDimension fixed;
  fixed.name = name;
  fixed.kind = SearchDimension::Kind::discrete;
  fixed.feasible_points = {value};
  auto it = std::find_if(space.dimensions.begin(), space.dimensions.end(),
                         [&](const SearchDimension& d) { return d.name == name; });
  if (it != space.dimensions.end()) {
    *it = fixed;
  } else {
    space.dimensions.push_back(fixed);
  }
  return space;
}

}  // namespace

ScientificAxis parse_scientific(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError("--scientific '" + text + "': expected NAME=v1,v2,... (e.g. activation=relu,tanh)");
  }
  ScientificAxis axis;
  axis.name = text.substr(0, eq);
  for (const auto& v : split_values(text.substr(eq + 1))) {
    if (v.empty()) throw InputError("--scientific '" + text + "': an empty value");
    if (std::find(axis.values.begin(), axis.values.end(), v) != axis.values.end()) {
      throw InputError("--scientific '" + text + "': the value '" + v + "' is given twice");
    }
    axis.values.push_back(v);
  }
  if (axis.values.size() < 2) {
    throw InputError("--scientific '" + text + "': give at least two values to compare (NAME=v1,v2)");
  }
  return axis;
}

std::string scientific_experiment(const std::string& experiment, const std::string& name, const std::string& value) {
  return experiment + "@" + name + "=" + value;
}

std::vector<SweepSpec> expand_scientific(const SweepSpec& base, const ScientificAxis& axis) {
  const WorkloadSpec& workload = workload_spec(base.workload);
  const AlgorithmInfo algorithm = algorithm_info(base.algorithm);
  const bool is_option = workload.option(axis.name) != nullptr;
  const bool is_hyperparameter =
      std::any_of(algorithm.hyperparameters.begin(), algorithm.hyperparameters.end(),
                  [&](const HyperparameterSpec& h) { return h.name == axis.name; });
  if (!is_option && !is_hyperparameter) {
    std::string options;
    for (const auto& o : workload.options) options += (options.empty() ? "" : ", ") + o.name;
    throw InputError("--scientific " + axis.name + ": neither an option of workload '" + base.workload +
                     "' (options: " + (options.empty() ? "none" : options) + ") nor a hyperparameter of '" +
                     base.algorithm + "' (see pacer list)");
  }
  if (!is_option && !base.space) {
    throw InputError("--scientific " + axis.name + ": a hyperparameter needs a search space to fix it in; " +
                     "self-tuning has none");
  }
  std::vector<SweepSpec> sweeps;
  for (const auto& value : axis.values) {
    SweepSpec s = base;
    s.experiment = scientific_experiment(base.experiment, axis.name, value);
    if (is_option) {
      s.trial.workload_options[axis.name] = value;
    } else {
      s.space = fix_in_space(*base.space, axis.name, number_of(axis.name, value));
      s.space_origin = base.space_origin + " with " + axis.name + "=" + value;
    }
    sweeps.push_back(std::move(s));
  }
  return sweeps;
}

}  // namespace pacer
