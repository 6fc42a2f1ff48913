#pragma once
// Search spaces in the AlgoPerf reference format, read as-is (torch-free):
//   {"learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"},
//    "warmup_factor": {"feasible_points": [0.05]}, "grafting_type": {"feasible_points": ["ADAM"]}}
// or a list of complete points [{"learning_rate": 0.003, ...}, ...]. Keys keep their JSON order
// (it fixes which Halton dimension each hyperparameter gets).
//
//   pacer::SearchSpace space = pacer::SearchSpace::from_json_file("spaces/nadamw.json");
//   pacer::validate_search_space(space, algorithm.hyperparameter_specs(), "nadamw", "spaces/nadamw.json");
//   double lr = pacer::map_unit_value(space.dimensions[0], 0.5);  // the geometric middle of a log range
#include <string>
#include <vector>

#include "core/hyperparameters.h"

namespace pacer {

enum class Scaling { linear, log };

struct SearchDimension {
  enum class Kind { range, discrete };
  std::string name;
  Kind kind = Kind::range;
  double min = 0.0, max = 0.0;               // range
  Scaling scaling = Scaling::linear;         // range
  std::vector<HyperparameterValue> feasible_points;  // discrete: numbers, booleans or strings
};

// x in [0, 1) -> a value: log: min * exp(x * ln(max / min)); linear: min + x * (max - min);
// discrete: feasible_points[floor(x * len)] (the last point for x >= 1).
HyperparameterValue map_unit_value(const SearchDimension& dim, double x);

struct SearchSpace {
  std::vector<SearchDimension> dimensions;   // dict form, in JSON order
  std::vector<Hyperparameters> fixed_points; // list form
  // What the reader tolerated: a key given twice in one object (AlgoPerf's published NAdamW
  // points name label_smoothing twice in one point) keeps its later value, as Python's json does.
  std::vector<std::string> warnings;

  bool is_list() const { return !fixed_points.empty(); }
  // Dimension names, or the union of the points' keys in first-seen order.
  std::vector<std::string> names() const;

  // InputError naming `origin` and the key: malformed JSON (with the parser's position), an empty
  // dict or list, an entry that is neither a range nor feasible_points, missing min/max, unknown
  // scaling, min > max, log scaling with min <= 0, empty feasible_points, non-numeric range ends,
  // non-finite values. Feasible points and list values may also be booleans and strings (as
  // AlgoPerf's spaces hold them); only an algorithm that takes any scalar accepts text.
  static SearchSpace from_json_text(const std::string& text, const std::string& origin);
  static SearchSpace from_json_file(const std::string& path);
  // The reference format, keys in order; from_json_text(to_json()) gives the same space.
  std::string to_json() const;
};

// Checks a space against the algorithm's declarations before any training: every name must be
// declared, every value (range bounds, feasible points, list values) inside the declared
// [min, max] (text only where the declaration takes any scalar), and a declared hyperparameter without a default must get values from the space.
// InputError naming origin and key.
void validate_search_space(const SearchSpace& space, const std::vector<HyperparameterSpec>& specs,
                           const std::string& algorithm, const std::string& origin);

}  // namespace pacer
