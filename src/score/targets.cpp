#include "score/targets.h"

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_input.h"
#include "workloads/registry.h"

namespace pacer {
namespace {

struct ReferenceWorkload {
  const char* name;
  const char* metric;
  double validation_target;
  double budget_v05, budget_v06;
  const char* base;  // v0.5 held-out variants name their base workload
};

// AlgoPerf reference workloads (docs/algoperf.md section 5). Variants keep their base's budget.
const ReferenceWorkload kReference[] = {
    {"criteo1tb", "loss", 0.123735, 7703, 7703, ""},
    {"fastmri", "ssim", 0.723653, 8859, 4430, ""},
    {"imagenet_resnet", "accuracy", 0.77431, 63008, 66159, ""},
    {"imagenet_vit", "accuracy", 0.77309, 77520, 69768, ""},
    {"librispeech_conformer", "wer", 0.085884, 61068, 58015, ""},
    {"librispeech_deepspeech", "wer", 0.119936, 55506, 44405, ""},
    {"ogbg", "mean_average_precision", 0.28098, 18477, 12011, ""},
    {"wmt", "bleu", 30.8491, 48151, 43336, ""},
    {"mnist", "accuracy", 0.97, 60, 60, ""},
    {"cifar", "accuracy", 0.85, 3600, 3600, ""},
    {"librispeech_conformer_layernorm", "wer", 0.09731, 61068, 58015, "librispeech_conformer"},
    {"imagenet_resnet_large_bn_init", "accuracy", 0.76526, 63008, 66159, "imagenet_resnet"},
    {"ogbg_model_size", "mean_average_precision", 0.269446, 18477, 12011, "ogbg"},
    {"wmt_glu_tanh", "bleu", 29.5779, 48151, 43336, "wmt"},
    {"fastmri_tanh", "ssim", 0.717840, 8859, 4430, "fastmri"},
    {"criteo1tb_embed_init", "loss", 0.129657, 7703, 7703, "criteo1tb"},
};

}  // namespace

bool metric_higher_is_better(const std::string& metric) {
  for (const char* m : {"accuracy", "mean_average_precision", "ssim", "bleu"}) {
    if (metric == m) return true;
  }
  for (const char* m : {"loss", "ce_loss", "error_rate", "ctc_loss", "wer", "l1_loss", "ppl"}) {
    if (metric == m) return false;
  }
  throw InputError("metric '" + metric + "' has no known direction: give \"direction\": \"min\" or \"max\"");
}

TargetTable TargetTable::builtin(const RulesPreset& rules) {
  TargetTable table;
  for (const auto& r : kReference) {
    ScoringTarget t;
    t.workload = r.name;
    t.metric = r.metric;
    t.higher_is_better = metric_higher_is_better(r.metric);
    t.validation_target = r.validation_target;
    t.budget_sec = rules.name == "v0.5" ? r.budget_v05 : r.budget_v06;
    t.base_workload = r.base;
    table.entries_[t.workload] = t;
  }
  // Pacer's own workloads carry their targets; a variant without its own budget uses its base's.
  for (const auto& spec : workload_specs()) {
    ScoringTarget t;
    t.workload = spec.name;
    t.metric = spec.target_metric;
    t.higher_is_better = spec.higher_is_better;
    t.validation_target = spec.validation_target;
    t.budget_sec = spec.max_runtime_sec;
    if (t.budget_sec <= 0 && spec.is_variant()) t.budget_sec = workload_spec(spec.base_workload).max_runtime_sec;
    t.base_workload = spec.base_workload;
    table.entries_[t.workload] = t;
  }
  return table;
}

void TargetTable::override_from_file(const std::string& path) {
  nlohmann::json j;
  try {
    const std::string text = read_text_file(path);
    check_json_input(text, path);
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw InputError(path + ": expected an object {workload: {metric, direction, ...}}");
  for (const auto& [name, entry] : j.items()) {
    const std::string where = path + ": workload '" + name + "'";
    if (!entry.is_object()) throw InputError(where + ": expected an object");
    ScoringTarget t;
    t.workload = name;
    if (!entry.contains("metric") || !entry["metric"].is_string()) throw InputError(where + ": \"metric\" (a string) is required");
    t.metric = entry["metric"];
    if (entry.contains("direction")) {
      const auto& d = entry["direction"];
      if (d != "min" && d != "max") throw InputError(where + ": \"direction\" must be \"min\" or \"max\"");
      t.higher_is_better = d == "max";
    } else {
      t.higher_is_better = metric_higher_is_better(t.metric);
    }
    if (!entry.contains("validation_target") || !entry["validation_target"].is_number()) {
      throw InputError(where + ": \"validation_target\" (a number) is required");
    }
    t.validation_target = entry["validation_target"];
    if (entry.contains("budget")) {
      if (!entry["budget"].is_number() || entry["budget"].get<double>() <= 0) {
        throw InputError(where + ": \"budget\" must be a number > 0 (seconds)");
      }
      t.budget_sec = entry["budget"];
    } else if (const ScoringTarget* old = find(name)) {
      t.budget_sec = old->budget_sec;
    }
    if (entry.contains("base_workload")) {
      if (!entry["base_workload"].is_string()) throw InputError(where + ": \"base_workload\" must be a string");
      t.base_workload = entry["base_workload"];
    }
    entries_[name] = t;
  }
}

const ScoringTarget* TargetTable::find(const std::string& workload) const {
  auto it = entries_.find(workload);
  return it == entries_.end() ? nullptr : &it->second;
}

const ScoringTarget& TargetTable::at(const std::string& workload) const {
  if (const ScoringTarget* t = find(workload)) return *t;
  throw InputError("no target known for workload '" + workload + "': give one with --targets FILE");
}

}  // namespace pacer
