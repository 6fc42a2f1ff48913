#pragma once
// Hyperparameters: an ordered name -> value map (JSON order is kept), and the declarations an
// algorithm makes of the hyperparameters it accepts.
//
//   auto hp = pacer::Hyperparameters::from_json_file("point.json");
//   hp.set("learning_rate", 0.01);
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

class PACER_API Hyperparameters {
 public:
  Hyperparameters() = default;
  // Hyperparameters{{"learning_rate", 0.1}, {"beta1", 0.9}}: a later duplicate name wins.
  Hyperparameters(std::initializer_list<std::pair<std::string, double>> items) {
    for (const auto& [name, value] : items) set(name, value);
  }

  // A JSON object of numbers (booleans read as 0/1). Throws InputError naming file and key. A
  // key given twice keeps the later value, as Python's json does (AlgoPerf's published points
  // have one), and is noted in `warnings` when given.
  static Hyperparameters from_json_file(const std::string& path, std::vector<std::string>* warnings = nullptr);
  static Hyperparameters from_json_text(const std::string& text, const std::string& origin,
                                        std::vector<std::string>* warnings = nullptr);
  // "name=value" as given to --set. Throws InputError on a malformed assignment.
  static std::pair<std::string, double> parse_assignment(const std::string& assignment);

  bool contains(const std::string& name) const;
  double get(const std::string& name) const;  // throws Error when absent
  double get_or(const std::string& name, double fallback) const;
  void set(const std::string& name, double value);  // keeps the position of an existing key
  const std::vector<std::pair<std::string, double>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

  std::string to_json(int indent = 2) const;

 private:
  std::vector<std::pair<std::string, double>> items_;
};

// What an algorithm declares about one hyperparameter.
struct PACER_API HyperparameterSpec {
  std::string name;
  std::optional<double> default_value;  // none: the user must give a value
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::string description;
  // An excluded end: values that make the update undefined (beta2 = 1 divides by zero in Adam's
  // bias correction, one_minus_beta1 = 0 likewise) are input errors, not NaN parameters.
  bool min_excluded = false, max_excluded = false;

  bool admits(double value) const;  // finite and inside the declared range
  std::string range_text() const;   // "[0, 1)", "(0, 1]", "[0, inf]"
};

// What an algorithm declares must hold together: names unique, min <= max, a default inside its
// own range. InputError naming `who` (a plugin) and the hyperparameter otherwise.
PACER_API void validate_hyperparameter_specs(const std::vector<HyperparameterSpec>& specs, const std::string& who);

// Checks `given` against `specs` and fills defaults, in the order of `specs`. Unknown names,
// values outside [min, max], non-finite values and missing values without a default are
// InputErrors naming the key.
PACER_API Hyperparameters resolve_hyperparameters(const std::vector<HyperparameterSpec>& specs,
                                        const Hyperparameters& given,
                                        const std::string& algorithm_name);

}  // namespace pacer
