#pragma once
// Incremental tuning rounds (the playbook's scientific, nuisance and fixed hyperparameters):
// one sweep per value of the scientific hyperparameter, each tuning the nuisance hyperparameters
// of the search space on its own, so the comparison is between tuned configurations. The
// scientific hyperparameter is a model option the workload declares (activation, width, ...) or
// one of the algorithm's hyperparameters (then fixed at each value in that sweep's space).
// Each sweep's experiment is "<experiment>@<name>=<value>"; `pacer analyze` groups by it.
//
//   pacer::ScientificAxis axis = pacer::parse_scientific("activation=relu,tanh");
//   std::vector<pacer::SweepSpec> sweeps = pacer::expand_scientific(base_sweep, axis);
#include <string>
#include <vector>

#include "tune/sweep.h"

namespace pacer {

struct ScientificAxis {
  std::string name;
  std::vector<std::string> values;  // as given, in order
};

// "NAME=v1,v2,..." with at least two distinct values; InputError otherwise.
ScientificAxis parse_scientific(const std::string& text);

// The experiment name of one value: "nadamw@activation=tanh".
std::string scientific_experiment(const std::string& experiment, const std::string& name, const std::string& value);

// One sweep per value (validated later by validate_sweep). InputError when the name is neither
// an option of the workload nor a hyperparameter of the algorithm, when a hyperparameter value
// is not a number, or for a hyperparameter under self-tuning (it has no space to fix it in).
std::vector<SweepSpec> expand_scientific(const SweepSpec& base, const ScientificAxis& axis);

}  // namespace pacer
