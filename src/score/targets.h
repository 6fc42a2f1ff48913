#pragma once
// What "reaching the target" means per workload when scoring: metric, direction, validation
// target, budget, and the base workload of a variant. Built in: Pacer's workloads (from the
// workload registry) and AlgoPerf's reference workloads with the v0.5 held-out variants, so the
// reference's own logs score without extra files. A JSON file can override or add entries:
//   {"my_workload": {"metric": "loss", "direction": "min", "validation_target": 0.3, "budget": 60}}
//
//   pacer::TargetTable targets = pacer::TargetTable::builtin(pacer::rules_preset("v0.5"));
//   targets.override_from_file("my_targets.json");
//   const pacer::ScoringTarget& t = targets.at("wmt");  // bleu >= 30.8491, budget 48151 s
#include <map>
#include <string>

#include "score/rules.h"

namespace pacer {

struct ScoringTarget {
  std::string workload;
  std::string metric;            // logged as validation/<metric>
  bool higher_is_better = true;
  double validation_target = 0.0;
  double budget_sec = 0.0;       // external-tuning budget under the rules in use
  std::string base_workload;     // non-empty for a variant

  std::string column() const { return "validation/" + metric; }
  // The scoring check: >= / <= (the in-run check is strict); NaN never reaches.
  bool reached(double value) const { return higher_is_better ? value >= validation_target : value <= validation_target; }
};

// Direction by metric name as in AlgoPerf: true for accuracy, mean_average_precision, ssim,
// bleu; false for loss, ce_loss, error_rate, ctc_loss, wer, l1_loss, ppl. InputError otherwise.
bool metric_higher_is_better(const std::string& metric);

class TargetTable {
 public:
  static TargetTable builtin(const RulesPreset& rules);
  // Entries of the file replace built-in ones of the same name. InputError naming file and key.
  void override_from_file(const std::string& path);
  const ScoringTarget* find(const std::string& workload) const;
  const ScoringTarget& at(const std::string& workload) const;  // InputError suggesting --targets

 private:
  std::map<std::string, ScoringTarget> entries_;
};

}  // namespace pacer
