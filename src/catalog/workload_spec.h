#pragma once
// The fixed attributes of a workload (no torch here: the CLI lists these without loading data).
//
//   const pacer::WorkloadSpec& s = workload.spec();
//   bool hit = s.reached(0.87, s.validation_target, /*strict=*/false);
#include <cstdint>
#include <string>
#include <vector>

#include "core/export.h"
#include "catalog/workload_options.h"

namespace pacer {

enum class EvalSplit { train, validation, test };
PACER_API const char* to_string(EvalSplit split);
PACER_API EvalSplit parse_eval_split(const std::string& name);  // InputError for an unknown name

struct PACER_API WorkloadSpec {
  std::string name;
  std::string description;
  std::string modality;       // e.g. "image classification", "language modelling"
  std::string base_workload;  // for a variant: the workload it varies; empty for a base workload
  std::string target_metric;  // e.g. "accuracy", "loss"; logged as validation/<metric>
  bool higher_is_better = true;
  double validation_target = 0.0;
  double test_target = 0.0;
  double time_budget = 0.0;  // seconds of submission time, external-tuning ruleset (AlgoPerf: max_allowed_runtime_sec)
  int64_t step_hint = 0;         // steps a baseline schedule is tuned for
  double eval_period_sec = 0.0;  // wall time between evals (AlgoPerf rule)
  int64_t reference_batch_size = 0;  // the batch size the baselines use
  std::string targets_source;        // where the targets came from (docs/targets.md)
  std::vector<WorkloadOptionSpec> options;  // tunable model options (catalog/workload_options.h)
  std::vector<std::string> metrics;  // what each eval split reports (without "validation/"); empty: undeclared

  bool is_variant() const { return !base_workload.empty(); }
  const WorkloadOptionSpec* option(const std::string& option_name) const;  // null: not declared
  // InputError naming the workload, the option and the valid names or values.
  void validate_options(const WorkloadOptions& given) const;
  // strict: the in-run goal check (<, >); not strict: the scoring check (<=, >=).
  bool reached(double value, double target, bool strict) const {
    if (higher_is_better) return strict ? value > target : value >= target;
    return strict ? value < target : value <= target;
  }
};

}  // namespace pacer
