#include "score/rules.h"

#include <cstdio>
#include <vector>

#include "core/error.h"

namespace pacer {
namespace {

const std::vector<RulesPreset>& presets() {
  static const std::vector<RulesPreset> all = {
      {"v0.5", 5, true, 3.0, true},
      {"v0.6", 3, false, 1.5, false},
  };
  return all;
}

}  // namespace

std::string RulesPreset::describe() const {
  char buffer[200];
  std::snprintf(buffer, sizeof(buffer), "%s (%d studies, %s, self-tuning budget x%g, evals past the budget %s)",
                name.c_str(), num_studies, held_out_variants ? "held-out variants" : "no held-out variants",
                self_tuning_multiplier, evals_past_budget_count ? "count" : "do not count");
  return buffer;
}

const RulesPreset& rules_preset(const std::string& name) {
  for (const auto& p : presets()) {
    if (p.name == name) return p;
  }
  throw InputError("unknown rules '" + name + "' (valid: v0.5, v0.6)");
}

const char* default_rules_name() { return "v0.6"; }

}  // namespace pacer
