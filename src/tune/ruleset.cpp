#include "tune/ruleset.h"

#include "core/error.h"

namespace pacer {

const char* to_string(Ruleset ruleset) { return ruleset == Ruleset::external ? "external" : "self"; }

Ruleset parse_ruleset(const std::string& name) {
  if (name == "external" || name == "external_tuning") return Ruleset::external;
  if (name == "self" || name == "self_tuning") return Ruleset::self;
  throw InputError("unknown ruleset '" + name + "' (valid: external, self)");
}

double default_budget_multiplier(Ruleset ruleset, const RulesPreset& rules) {
  return ruleset == Ruleset::self ? rules.self_tuning_multiplier : 1.0;
}

}  // namespace pacer
