#pragma once
// The two AlgoPerf tuning rulesets and what they imply for a tuning run (torch-free).
//   external: the submitter's search space, N studies x M trials, best trial per study;
//   self:     no hyperparameters, one run per study, budget x the rules' multiplier (1.5, v0.5: 3).
//
//   pacer::Ruleset r = pacer::parse_ruleset("self");
//   double multiplier = pacer::default_budget_multiplier(r, pacer::rules_preset("v0.5"));  // 3
#include <string>

#include "score/rules.h"

namespace pacer {

enum class Ruleset { external, self };

const char* to_string(Ruleset ruleset);
Ruleset parse_ruleset(const std::string& name);  // "external" | "self" (also "external_tuning", "self_tuning")
double default_budget_multiplier(Ruleset ruleset, const RulesPreset& rules);
constexpr int kDefaultTrialsPerStudy = 5;

}  // namespace pacer
