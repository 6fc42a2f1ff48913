#pragma once
// Hyperparameters: an ordered name -> value map (JSON order is kept), and the declarations an
// algorithm makes of the hyperparameters it accepts. A value is a number, or, as AlgoPerf's search
// spaces and points hold them, a boolean or a string (Distributed Shampoo's "grafting_type":
// "ADAM"); the built-in algorithms take numbers (a boolean reads as 0/1), a Python submission any.
//
//   auto hp = pacer::Hyperparameters::from_json_file("point.json");
//   hp.set("learning_rate", 0.01);
//   hp.set("grafting_type", pacer::HyperparameterValue::text("ADAM"));
//   auto resolved = pacer::resolve_hyperparameters(algorithm.hyperparameter_specs(), hp);
//   double lr = resolved.get("learning_rate");
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/export.h"

namespace pacer {

// One hyperparameter's value. Implicit from a double: numbers are the common case.
class PACER_API HyperparameterValue {
 public:
  enum class Kind { number, boolean, text };
  HyperparameterValue(double number = 0.0) : number_(number) {}  // NOLINT(google-explicit-constructor)
  static HyperparameterValue boolean(bool value);
  static HyperparameterValue text(std::string value);
  // What --set gives: a number where the whole text reads as one, true/false, else the text.
  static HyperparameterValue parse(const std::string& text);

  Kind kind() const { return kind_; }
  bool is_text() const { return kind_ == Kind::text; }
  // A number, or a boolean as 0/1. Throws Error for text: callers that take text check is_text().
  double number() const;
  const std::string& text_value() const { return text_; }
  // As JSON writes it: 0.001, true, "ADAM" (numbers exactly as nlohmann::json dumps a double).
  std::string json() const;
  // Same kind and value (a boolean is not the number 1).
  friend PACER_API bool operator==(const HyperparameterValue& a, const HyperparameterValue& b);
  friend bool operator!=(const HyperparameterValue& a, const HyperparameterValue& b) { return !(a == b); }

 private:
  Kind kind_ = Kind::number;
  double number_ = 0.0;  // a boolean's 0/1
  std::string text_;
};

class PACER_API Hyperparameters {
 public:
  Hyperparameters() = default;
  // Hyperparameters{{"learning_rate", 0.1}, {"beta1", 0.9}}: a later duplicate name wins.
  Hyperparameters(std::initializer_list<std::pair<std::string, HyperparameterValue>> items) {
    for (const auto& [name, value] : items) set(name, value);
  }

  // A JSON object of numbers, booleans and strings. Throws InputError naming file and key for
  // any other value (null, a list, an object). A
  // key given twice keeps the later value, as Python's json does (AlgoPerf's published points
  // have one), and is noted in `warnings` when given.
  static Hyperparameters from_json_file(const std::string& path, std::vector<std::string>* warnings = nullptr);
  static Hyperparameters from_json_text(const std::string& text, const std::string& origin,
                                        std::vector<std::string>* warnings = nullptr);
  // "name=value" as given to --set (the value read by HyperparameterValue::parse). Throws
  // InputError on a malformed assignment.
  static std::pair<std::string, HyperparameterValue> parse_assignment(const std::string& assignment);
  // The point of --hparams FILE (empty: none) with each --set "name=value" over it, in order.
  static Hyperparameters from_file_and_assignments(const std::string& path, const std::vector<std::string>& assignments,
                                                   std::vector<std::string>* warnings = nullptr);

  bool contains(const std::string& name) const;
  // The number (a boolean as 0/1). Throws Error when absent, InputError naming it when text.
  double get(const std::string& name) const;
  double get_or(const std::string& name, double fallback) const;
  const HyperparameterValue& value(const std::string& name) const;  // throws Error when absent
  void set(const std::string& name, HyperparameterValue value);  // keeps the position of an existing key
  const std::vector<std::pair<std::string, HyperparameterValue>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

  std::string to_json(int indent = 2) const;

 private:
  std::vector<std::pair<std::string, HyperparameterValue>> items_;
};

// What an algorithm declares about one hyperparameter.
struct PACER_API HyperparameterSpec {
  std::string name;
  std::optional<HyperparameterValue> default_value;  // none: the user must give a value
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::string description;
  // An excluded end: values that make the update undefined (beta2 = 1 divides by zero in Adam's
  // bias correction, one_minus_beta1 = 0 likewise) are input errors, not NaN parameters.
  bool min_excluded = false, max_excluded = false;
  // Also takes booleans and strings, kept as given (a Python submission's hyperparameters: AlgoPerf
  // hands them to it as its space holds them). Without it a boolean reads as 0/1 and text is refused.
  bool any_scalar = false;

  bool admits(double value) const;  // finite and inside the declared range
  bool admits(const HyperparameterValue& value) const;  // text and booleans: any_scalar
  std::string range_text() const;   // "[0, 1)", "(0, 1]", "[0, inf]"
};

// What an algorithm declares must hold together: names unique, min <= max, a default inside its
// own range. InputError naming `who` (a plugin) and the hyperparameter otherwise.
PACER_API void validate_hyperparameter_specs(const std::vector<HyperparameterSpec>& specs, const std::string& who);

// Checks `given` against `specs` and fills defaults, in the order of `specs`. Unknown names,
// values outside [min, max], non-finite values, text for a spec that takes numbers and missing
// values without a default are InputErrors naming the key. A boolean for a spec that takes numbers
// becomes 0/1.
PACER_API Hyperparameters resolve_hyperparameters(const std::vector<HyperparameterSpec>& specs,
                                        const Hyperparameters& given,
                                        const std::string& algorithm_name);

}  // namespace pacer
