#pragma once
// Scoring rules presets of AlgoPerf: how many studies, whether held-out workload variants gate
// their base workloads, the self-tuning budget multiplier (budgets themselves: score/targets.h).
//
//   const pacer::RulesPreset& rules = pacer::rules_preset("v0.5");
//   std::puts(rules.describe().c_str());
//   // "v0.5 (5 studies, held-out variants, self-tuning budget x3, evals past the budget count)"
#include <string>

namespace pacer {

struct RulesPreset {
  std::string name;                    // "v0.5", "v0.6"
  int num_studies = 3;                 // studies expected per workload (fewer: a warning)
  bool held_out_variants = false;      // v0.5: a base workload counts only if its variant reaches too
  double self_tuning_multiplier = 1.5; // budget multiple under the self-tuning ruleset
  // An eval logged past the budget can still reach the target: true under v0.5, whose runner
  // made one more eval after the budget ran out and whose published scores count it; false from
  // v0.6 on (the runner's fix "potentially giving a free evaluation", PR 789), so scoring applies
  // the same rule to logs and stores written before a runner stopped at its budget.
  bool evals_past_budget_count = false;
  std::string describe() const;
};

const RulesPreset& rules_preset(const std::string& name);  // InputError listing valid names
const char* default_rules_name();                          // "v0.6", the current rules

}  // namespace pacer
