#include "tune/search_space.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/hyperparameter_json.h"
#include "core/json_input.h"

namespace pacer {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

double read_number(const ordered_json& value, const std::string& where) {
  if (value.is_boolean()) return value.get<bool>() ? 1.0 : 0.0;
  if (!value.is_number()) throw InputError(where + " must be a number (got " + value.dump() + ")");
  const double v = value.get<double>();
  if (!std::isfinite(v)) throw InputError(where + " must be finite");
  return v;
}

// A feasible point or a list value: any JSON scalar but null (AlgoPerf's spaces hold strings and
// booleans as they are handed to the submission).
HyperparameterValue read_value(const ordered_json& value, const std::string& where) {
  return value.is_number() ? HyperparameterValue(read_number(value, where)) : value_from_json(value, where);
}

SearchDimension read_dimension(const std::string& name, const ordered_json& entry, const std::string& origin) {
  const std::string key = origin + ": '" + name + "'";
  if (!entry.is_object()) {
    throw InputError(key + ": expected {\"min\", \"max\", \"scaling\"} or {\"feasible_points\": [...]} (got " +
                     entry.dump() + ")");
  }
  SearchDimension dim;
  dim.name = name;
  if (entry.contains("feasible_points")) {
    for (const auto& [field, _] : entry.items()) {
      if (field != "feasible_points") throw InputError(key + ": unexpected field '" + field + "' beside feasible_points");
    }
    const auto& points = entry.at("feasible_points");
    if (!points.is_array()) throw InputError(key + ": feasible_points must be a list");
    if (points.empty()) throw InputError(key + ": feasible_points is empty");
    dim.kind = SearchDimension::Kind::discrete;
    for (size_t i = 0; i < points.size(); ++i) {
      dim.feasible_points.push_back(read_value(points[i], key + ": feasible_points[" + std::to_string(i) + "]"));
    }
    return dim;
  }
  for (const auto& [field, _] : entry.items()) {
    if (field != "min" && field != "max" && field != "scaling") {
      throw InputError(key + ": unexpected field '" + field + "' (a range has min, max, scaling)");
    }
  }
  if (!entry.contains("min") || !entry.contains("max")) {
    throw InputError(key + ": a range needs both \"min\" and \"max\" (or give \"feasible_points\")");
  }
  dim.kind = SearchDimension::Kind::range;
  dim.min = read_number(entry.at("min"), key + ": min");
  dim.max = read_number(entry.at("max"), key + ": max");
  // The reference requires "scaling" (it reads space['scaling']); so do we.
  if (!entry.contains("scaling")) throw InputError(key + ": a range needs \"scaling\": \"log\" or \"linear\"");
  const std::string scaling =
      entry.at("scaling").is_string() ? entry.at("scaling").get<std::string>() : entry.at("scaling").dump();
  if (scaling == "log") dim.scaling = Scaling::log;
  else if (scaling == "linear") dim.scaling = Scaling::linear;
  else throw InputError(key + ": unknown scaling " + scaling + " (valid: log, linear)");
  if (dim.min > dim.max) {
    throw InputError(key + ": min " + number_text(dim.min) + " is greater than max " + number_text(dim.max));
  }
  if (dim.scaling == Scaling::log && dim.min <= 0.0) {
    throw InputError(key + ": log scaling needs min > 0 (got " + number_text(dim.min) + ")");
  }
  return dim;
}

}  // namespace

HyperparameterValue map_unit_value(const SearchDimension& dim, double x) {
  if (dim.kind == SearchDimension::Kind::discrete) {
    const auto n = dim.feasible_points.size();
    const auto index = static_cast<size_t>(std::max(0.0, std::floor(x * static_cast<double>(n))));
    return dim.feasible_points[std::min(index, n - 1)];
  }
  if (dim.scaling == Scaling::log) return dim.min * std::exp(x * std::log(dim.max / dim.min));
  return dim.min + x * (dim.max - dim.min);
}

std::vector<std::string> SearchSpace::names() const {
  std::vector<std::string> out;
  if (!is_list()) {
    for (const auto& d : dimensions) out.push_back(d.name);
    return out;
  }
  for (const auto& point : fixed_points) {
    for (const auto& [name, _] : point.items()) {
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
  }
  return out;
}

SearchSpace SearchSpace::from_json_text(const std::string& text, const std::string& origin) {
  check_json_input(text, origin);
  ordered_json doc;
  // A key given twice in one object: noted with where it is (point i of a list, or the entry of
  // a dict), since the parser keeps only the later value.
  std::vector<std::string> warnings;
  std::vector<std::vector<std::string>> keys_of_open_objects;
  bool list_form = false;
  int64_t points_done = 0;
  std::string entry;  // the dict form's current top-level key
  const auto note_duplicates = [&](int depth, nlohmann::detail::parse_event_t event, ordered_json& parsed) {
    using Event = nlohmann::detail::parse_event_t;
    if (event == Event::array_start && depth == 0) list_form = true;
    if (event == Event::object_start) keys_of_open_objects.emplace_back();
    if (event == Event::object_end && !keys_of_open_objects.empty()) {
      keys_of_open_objects.pop_back();
      if (list_form && depth == 1) ++points_done;
    }
    if (event != Event::key || keys_of_open_objects.empty()) return true;
    const std::string key = parsed.get<std::string>();
    if (!list_form && depth == 1) entry = key;
    auto& seen = keys_of_open_objects.back();
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
      seen.push_back(key);
      return true;
    }
    const std::string where = list_form ? "point " + std::to_string(points_done) + ": "
                              : depth > 1 ? "'" + entry + "': " : std::string();
    warnings.push_back(origin + ": " + where + "'" + key +
                       "' is given twice; the later value is kept (as Python's json does)");
    return true;
  };
  try {
    doc = ordered_json::parse(text, note_duplicates);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers such as 1e999
    throw InputError(origin + ": malformed JSON: " + e.what());
  }
  SearchSpace space;
  space.warnings = std::move(warnings);
  if (doc.is_object()) {
    if (doc.empty()) throw InputError(origin + ": the search space is empty");
    for (const auto& [name, entry] : doc.items()) space.dimensions.push_back(read_dimension(name, entry, origin));
    return space;
  }
  if (doc.is_array()) {
    if (doc.empty()) throw InputError(origin + ": the list of points is empty");
    for (size_t i = 0; i < doc.size(); ++i) {
      const std::string where = origin + ": point " + std::to_string(i);
      if (!doc[i].is_object() || doc[i].empty()) throw InputError(where + " must be a non-empty object of values");
      Hyperparameters point;
      for (const auto& [name, value] : doc[i].items()) point.set(name, read_value(value, where + ": '" + name + "'"));
      space.fixed_points.push_back(point);
    }
    return space;
  }
  throw InputError(origin + ": a search space is an object of hyperparameters or a list of points (got " +
                   std::string(doc.type_name()) + ")");
}

SearchSpace SearchSpace::from_json_file(const std::string& path) {
  return from_json_text(read_text_file(path), path);
}

std::string SearchSpace::to_json() const {
  if (is_list()) {
    ordered_json doc = ordered_json::array();
    for (const auto& point : fixed_points) doc.push_back(ordered_json::parse(point.to_json(-1)));
    return doc.dump();
  }
  ordered_json doc = ordered_json::object();
  for (const auto& d : dimensions) {
    ordered_json entry = ordered_json::object();
    if (d.kind == SearchDimension::Kind::discrete) {
      entry["feasible_points"] = ordered_json::array();
      for (const auto& v : d.feasible_points) entry["feasible_points"].push_back(value_json(v));
    } else {
      entry["min"] = d.min;
      entry["max"] = d.max;
      entry["scaling"] = d.scaling == Scaling::log ? "log" : "linear";
    }
    doc[d.name] = entry;
  }
  return doc.dump();
}

void validate_search_space(const SearchSpace& space, const std::vector<HyperparameterSpec>& specs,
                           const std::string& algorithm, const std::string& origin) {
  auto find = [&](const std::string& name) -> const HyperparameterSpec* {
    for (const auto& s : specs) {
      if (s.name == name) return &s;
    }
    return nullptr;
  };
  std::string declared;
  for (const auto& s : specs) declared += (declared.empty() ? "" : ", ") + s.name;
  auto check_value = [&](const HyperparameterSpec& spec, const HyperparameterValue& value, const std::string& what) {
    if (value.is_text() && !spec.any_scalar) {
      throw InputError(origin + ": '" + spec.name + "': " + what + " " + value.json() + " is text; " + algorithm +
                       " takes a number for it");
    }
    if (!spec.admits(value)) {
      throw InputError(origin + ": '" + spec.name + "': " + what + " " + number_text(value.number()) + " is outside " +
                       spec.range_text() + " declared by " + algorithm);
    }
  };
  for (const auto& name : space.names()) {
    if (!find(name)) {
      throw InputError(origin + ": '" + name + "' is not a hyperparameter of " + algorithm + " (it declares: " +
                       declared + ")");
    }
  }
  for (const auto& d : space.dimensions) {
    const auto& spec = *find(d.name);
    if (d.kind == SearchDimension::Kind::range) {
      check_value(spec, d.min, "min");
      check_value(spec, d.max, "max");
    } else {
      for (const auto& v : d.feasible_points) check_value(spec, v, "feasible point");
    }
  }
  for (size_t i = 0; i < space.fixed_points.size(); ++i) {
    for (const auto& [name, value] : space.fixed_points[i].items()) {
      check_value(*find(name), value, "point " + std::to_string(i) + " value");
    }
  }
  for (const auto& spec : specs) {
    if (spec.default_value) continue;
    if (!space.is_list()) {
      const auto names = space.names();
      if (std::find(names.begin(), names.end(), spec.name) == names.end()) {
        throw InputError(origin + ": '" + spec.name + "' has no default in " + algorithm +
                         " and the search space gives it no values");
      }
      continue;
    }
    for (size_t i = 0; i < space.fixed_points.size(); ++i) {
      if (!space.fixed_points[i].contains(spec.name)) {
        throw InputError(origin + ": point " + std::to_string(i) + ": '" + spec.name + "' has no default in " +
                         algorithm + " and the point gives no value");
      }
    }
  }
}

}  // namespace pacer
