#include "score/targets.h"

#include "score/pace.h"
#include "catalog/workload_specs.h"

namespace pacer {

// Apart from targets.cpp so that the reference table and the file readers link without the
// workload registry (and LibTorch): the parsers' fuzz targets use them alone.
TargetTable TargetTable::builtin(const RulesPreset& rules) {
  TargetTable table = reference(rules);
  // Pacer's own workloads carry their targets; a variant without its own budget uses its base's.
  for (const auto& spec : workload_specs()) {
    ScoringTarget t;
    t.workload = spec.name;
    t.metric = spec.target_metric;
    t.higher_is_better = spec.higher_is_better;
    t.validation_target = spec.validation_target;
    t.time_budget = spec.time_budget;
    if (t.time_budget <= 0 && spec.is_variant()) t.time_budget = workload_spec(spec.base_workload).time_budget;
    t.base_workload = spec.base_workload;
    t.seed_sd = target_seed_sd(spec.name).value_or(0.0);
    table.entries_[t.workload] = t;
  }
  return table;
}

}  // namespace pacer
