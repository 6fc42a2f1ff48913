#pragma once
// Tunable options of a workload (activation, width, depth, ...), declared with the workload so
// that a tuning round can treat one of them as its scientific hyperparameter (the playbook's
// incremental tuning: `pacer tune --scientific activation=relu,tanh`). An option changes the
// model, not the data, the targets or the budget. Torch-free.
//
//   pacer::WorkloadOptions options = pacer::parse_workload_options({"activation=tanh", "width=256"});
//   pacer::workload_spec("fmnist_mlp").validate_options(options);   // InputError naming a bad one
//   auto workload = pacer::create_workload("fmnist_mlp", options);
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/export.h"

namespace pacer {

struct PACER_API WorkloadOptionSpec {
  enum class Kind { choice, integer };
  std::string name;
  Kind kind = Kind::choice;
  std::string default_value;         // as the workload is registered
  std::vector<std::string> choices;  // choice
  int64_t min = 0, max = 0;          // integer, inclusive
  std::string description;
  std::string describe() const;      // "activation: relu|tanh|gelu (default relu): ..."
};

// name -> value, as given on the command line; ordered, so stored forms are stable.
using WorkloadOptions = std::map<std::string, std::string>;

// "NAME=VALUE" items; InputError for an item without '=' or with an empty name or value, or a
// name given twice.
PACER_API WorkloadOptions parse_workload_options(const std::vector<std::string>& items);
// "activation=tanh,width=256" (empty for no options).
PACER_API std::string to_string(const WorkloadOptions& options);

}  // namespace pacer
