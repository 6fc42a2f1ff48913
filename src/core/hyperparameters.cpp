#include "core/hyperparameters.h"
#include "core/hyperparameter_json.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_input.h"

namespace pacer {

HyperparameterValue HyperparameterValue::boolean(bool value) {
  HyperparameterValue v(value ? 1.0 : 0.0);
  v.kind_ = Kind::boolean;
  return v;
}

HyperparameterValue HyperparameterValue::text(std::string value) {
  HyperparameterValue v;
  v.kind_ = Kind::text;
  v.text_ = std::move(value);
  return v;
}

HyperparameterValue HyperparameterValue::parse(const std::string& text) {
  if (text == "true" || text == "false") return boolean(text == "true");
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (!text.empty() && end != text.c_str() && *end == '\0') return HyperparameterValue(number);
  return HyperparameterValue::text(text);
}

double HyperparameterValue::number() const {
  if (kind_ == Kind::text) throw Error("the hyperparameter value " + json() + " is text, not a number");
  return number_;
}

std::string HyperparameterValue::json() const { return value_json(*this).dump(); }

nlohmann::ordered_json value_json(const HyperparameterValue& value) {
  switch (value.kind()) {
    case HyperparameterValue::Kind::boolean: return value.number() != 0.0;
    case HyperparameterValue::Kind::text: return value.text_value();
    case HyperparameterValue::Kind::number: break;
  }
  return value.number();
}

HyperparameterValue value_from_json(const nlohmann::ordered_json& json, const std::string& where) {
  if (json.is_boolean()) return HyperparameterValue::boolean(json.get<bool>());
  if (json.is_number()) return HyperparameterValue(json.get<double>());
  if (json.is_string()) return HyperparameterValue::text(json.get<std::string>());
  throw InputError(where + " must be a number, a boolean or a string, got " + json.dump());
}

bool operator==(const HyperparameterValue& a, const HyperparameterValue& b) {
  if (a.kind() != b.kind()) return false;
  return a.is_text() ? a.text_value() == b.text_value() : a.number() == b.number();
}

Hyperparameters Hyperparameters::from_json_file(const std::string& path, std::vector<std::string>* warnings) {
  return from_json_text(read_text_file(path), path, warnings);
}

Hyperparameters Hyperparameters::from_file_and_assignments(const std::string& path,
                                                           const std::vector<std::string>& assignments,
                                                           std::vector<std::string>* warnings) {
  Hyperparameters point = path.empty() ? Hyperparameters{} : from_json_file(path, warnings);
  for (const auto& assignment : assignments) {
    auto [name, value] = parse_assignment(assignment);
    point.set(name, std::move(value));
  }
  return point;
}

Hyperparameters Hyperparameters::from_json_text(const std::string& text, const std::string& origin,
                                                std::vector<std::string>* warnings) {
  check_json_input(text, origin);
  nlohmann::ordered_json doc;
  std::vector<std::string> seen;
  const auto note_duplicates = [&](int depth, nlohmann::detail::parse_event_t event, nlohmann::ordered_json& parsed) {
    if (event != nlohmann::detail::parse_event_t::key || depth != 1) return true;
    const std::string key = parsed.get<std::string>();
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
      seen.push_back(key);
    } else if (warnings) {
      warnings->push_back(origin + ": '" + key + "' is given twice; the later value is kept (as Python's json does)");
    }
    return true;
  };
  try {
    doc = nlohmann::ordered_json::parse(text, note_duplicates);
  } catch (const nlohmann::json::exception& e) {  // also out_of_range for numbers such as 1e999
    throw InputError(origin + ": malformed JSON: " + e.what());
  }
  if (!doc.is_object()) throw InputError(origin + ": expected a JSON object of hyperparameters");
  Hyperparameters hp;
  for (const auto& [key, value] : doc.items()) {
    hp.set(key, value_from_json(value, origin + ": hyperparameter '" + key + "'"));
  }
  return hp;
}

std::pair<std::string, HyperparameterValue> Hyperparameters::parse_assignment(const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size()) {
    throw InputError("--set '" + assignment + "': expected name=value");
  }
  return {assignment.substr(0, eq), HyperparameterValue::parse(assignment.substr(eq + 1))};
}

bool Hyperparameters::contains(const std::string& name) const {
  for (const auto& item : items_)
    if (item.first == name) return true;
  return false;
}

const HyperparameterValue& Hyperparameters::value(const std::string& name) const {
  for (const auto& item : items_)
    if (item.first == name) return item.second;
  throw Error("hyperparameter '" + name + "' is not set");
}

double Hyperparameters::get(const std::string& name) const {
  const HyperparameterValue& v = value(name);
  if (v.is_text()) throw InputError("hyperparameter '" + name + "' is " + v.json() + ", where a number is needed");
  return v.number();
}

double Hyperparameters::get_or(const std::string& name, double fallback) const {
  return contains(name) ? get(name) : fallback;
}

void Hyperparameters::set(const std::string& name, HyperparameterValue value) {
  for (auto& item : items_) {
    if (item.first == name) {
      item.second = std::move(value);
      return;
    }
  }
  items_.emplace_back(name, std::move(value));
}

std::string Hyperparameters::to_json(int indent) const {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  for (const auto& [name, value] : items_) doc[name] = value_json(value);
  return doc.dump(indent);
}

bool HyperparameterSpec::admits(const HyperparameterValue& value) const {
  if (value.is_text()) return any_scalar;
  if (value.kind() == HyperparameterValue::Kind::boolean && any_scalar) return true;
  return admits(value.number());
}

bool HyperparameterSpec::admits(double value) const {
  if (!std::isfinite(value)) return false;
  if (value < min || (min_excluded && value == min)) return false;
  return !(value > max || (max_excluded && value == max));
}

void validate_hyperparameter_specs(const std::vector<HyperparameterSpec>& specs, const std::string& who) {
  for (size_t i = 0; i < specs.size(); ++i) {
    const HyperparameterSpec& h = specs[i];
    if (h.name.empty()) throw InputError(who + ": hyperparameter " + std::to_string(i) + " has no name");
    for (size_t j = 0; j < i; ++j) {
      if (specs[j].name == h.name) throw InputError(who + ": hyperparameter '" + h.name + "' is declared twice");
    }
    if (std::isnan(h.min) || std::isnan(h.max) || h.min > h.max) {
      throw InputError(who + ": hyperparameter '" + h.name + "' declares an empty range " + h.range_text());
    }
    if (h.default_value && !h.admits(*h.default_value)) {
      std::ostringstream value;
      if (h.default_value->kind() == HyperparameterValue::Kind::number) value << h.default_value->number();
      else value << h.default_value->json();
      throw InputError(who + ": hyperparameter '" + h.name + "' has the default " + value.str() +
                       ", outside its own range " + h.range_text());
    }
  }
}

std::string HyperparameterSpec::range_text() const {
  std::ostringstream out;
  out << (min_excluded ? "(" : "[") << min << ", " << max << (max_excluded ? ")" : "]");
  return out.str();
}

Hyperparameters resolve_hyperparameters(const std::vector<HyperparameterSpec>& specs,
                                        const Hyperparameters& given,
                                        const std::string& algorithm_name) {
  for (const auto& [name, value] : given.items()) {
    const HyperparameterSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (spec == nullptr) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      // A Python submission (named "<stem>.py") declares its names in tuning_search_space.json.
      const bool python = algorithm_name.size() > 3 && algorithm_name.compare(algorithm_name.size() - 3, 3, ".py") == 0;
      throw InputError("unknown hyperparameter '" + name + "' for algorithm " + algorithm_name +
                       (known.empty() ? std::string(", which declares none") : " (it accepts: " + known + ")") +
                       (python ? std::string(": a Python submission declares its hyperparameters in the "
                                             "tuning_search_space.json beside it")
                               : std::string()));
    }
    if (value.is_text() && !spec->any_scalar) {
      throw InputError("hyperparameter '" + name + "' = " + value.json() + " is text; algorithm " + algorithm_name +
                       " takes a number for it");
    }
    if (!spec->admits(value)) {
      std::ostringstream msg;
      msg << "hyperparameter '" << name << "' = " << value.number() << " is out of range " << spec->range_text()
          << " for algorithm " << algorithm_name;
      throw InputError(msg.str());
    }
  }
  Hyperparameters resolved;
  for (const auto& spec : specs) {
    if (given.contains(spec.name)) {
      // A spec that takes numbers gets one (a boolean as 0/1); any_scalar keeps what was given.
      const HyperparameterValue& value = given.value(spec.name);
      resolved.set(spec.name, spec.any_scalar ? value : HyperparameterValue(value.number()));
    } else if (spec.default_value) {
      resolved.set(spec.name, *spec.default_value);
    } else {
      throw InputError("hyperparameter '" + spec.name + "' of algorithm " + algorithm_name +
                       " has no value and no default");
    }
  }
  return resolved;
}

}  // namespace pacer
