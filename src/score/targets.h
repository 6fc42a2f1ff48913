#pragma once
// What "reaching the target" means per workload when scoring: metric, direction, validation
// target, budget, and the base workload of a variant. Built in: Pacer's workloads (from the
// workload registry) and every AlgoPerf reference workload and variant of the frozen targets
// files (v0.5 and v0.6, finewebedu_lm included), so the reference's own logs score without extra
// files. A JSON file can override or add entries, in Pacer's format
//   {"my_workload": {"metric": "loss", "direction": "min", "validation_target": 0.3, "budget": 60}}
// or the reference's workload_targets*.json (whose base and held-out lists say what is scored).
//
//   pacer::TargetTable targets = pacer::TargetTable::builtin(pacer::rules_preset("v0.5"));
//   targets.override_from_file("my_targets.json");
//   const pacer::ScoringTarget& t = targets.at("wmt");  // bleu >= 30.8491, budget 48151 s
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "score/rules.h"

namespace pacer {

struct ScoringTarget {
  std::string workload;
  std::string metric;            // logged as validation/<metric>
  bool higher_is_better = true;
  double validation_target = 0.0;
  double time_budget = 0.0;       // seconds; the external-tuning budget under the rules in use
  double seed_sd = 0.0;          // seed sd of the target (score/pace.h); 0: unknown
  std::string base_workload;     // non-empty for a variant
  // Non-empty: these rules do not score the workload (a v0.5 variant not drawn as held-out, a
  // workload of another benchmark version); its logs are skipped with this reason, as the
  // reference scorer skips them.
  std::string out_of_rules;

  std::string column() const { return "validation/" + metric; }
  // The scoring check: >= / <= (the in-run check is strict); NaN never reaches.
  bool reached(double value) const { return higher_is_better ? value >= validation_target : value <= validation_target; }
};

// Direction by metric name as in AlgoPerf: true for accuracy, mean_average_precision, ssim,
// bleu; false for loss, ce_loss, error_rate, ctc_loss, wer, l1_loss, ppl. InputError otherwise.
bool metric_higher_is_better(const std::string& metric);

class TargetTable {
 public:
  // AlgoPerf's reference workloads and Pacer's registered workloads.
  static TargetTable builtin(const RulesPreset& rules);
  // AlgoPerf's reference workloads only (every entry of the frozen targets files).
  static TargetTable reference(const RulesPreset& rules);
  // Entries of the file replace built-in ones of the same name. InputError naming file and key.
  // Reads Pacer's format (above) and the reference's workload_targets*.json (benchmark_version,
  // base_workloads, held_out_workloads, workloads: {target_metric_name, ...}).
  void override_from_file(const std::string& path);
  const std::vector<std::string>& warnings() const { return warnings_; }
  const ScoringTarget* find(const std::string& workload) const;
  const ScoringTarget& at(const std::string& workload) const;  // InputError suggesting --targets

 private:
  void add_reference_file(const nlohmann::json& j, const std::string& path);

  std::string rules_name_;
  std::map<std::string, ScoringTarget> entries_;
  std::vector<std::string> warnings_;
};

}  // namespace pacer
