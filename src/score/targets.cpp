#include "score/targets.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_input.h"

namespace pacer {
namespace {

struct ReferenceWorkload {
  const char* name;
  const char* metric;
  double validation_target;
  double budget_v05, budget_v06;  // 0: not a workload of that version
  const char* base;               // a variant names its base workload
  bool drawn_v05;                 // a variant drawn as a v0.5 held-out workload
};

// AlgoPerf reference workloads: every entry of the frozen targets files workload_targets_v05.json
// and workload_targets.json (mlcommons/submissions_algorithms scoring/; docs/algoperf.md section
// 5). Budgets are the workloads' max_allowed_runtime_sec; variants keep their base's budget.
// finewebedu_lm is a base workload from v0.6's targets file on (budget 31967 s, 8.9 h).
const ReferenceWorkload kReference[] = {
    {"criteo1tb", "loss", 0.123735, 7703, 7703, "", false},
    {"fastmri", "ssim", 0.723653, 8859, 4430, "", false},
    {"imagenet_resnet", "accuracy", 0.77431, 63008, 66159, "", false},
    {"imagenet_vit", "accuracy", 0.77309, 77520, 69768, "", false},
    {"librispeech_conformer", "wer", 0.085884, 61068, 58015, "", false},
    {"librispeech_deepspeech", "wer", 0.119936, 55506, 44405, "", false},
    {"ogbg", "mean_average_precision", 0.28098, 18477, 12011, "", false},
    {"wmt", "bleu", 30.8491, 48151, 43336, "", false},
    {"finewebedu_lm", "ppl", 22.2995, 0, 31967, "", false},
    {"mnist", "accuracy", 0.97, 60, 60, "", false},
    {"cifar", "accuracy", 0.85, 3600, 3600, "", false},
    {"criteo1tb_test", "loss", 0.123735, 7703, 7703, "criteo1tb", false},
    {"criteo1tb_layernorm", "loss", 0.123757, 7703, 7703, "criteo1tb", false},
    {"criteo1tb_embed_init", "loss", 0.129657, 7703, 7703, "criteo1tb", true},
    {"criteo1tb_resnet", "loss", 0.12415, 7703, 7703, "criteo1tb", false},
    {"fastmri_model_size", "ssim", 0.723559, 8859, 4430, "fastmri", false},
    {"fastmri_tanh", "ssim", 0.71784, 8859, 4430, "fastmri", true},
    {"fastmri_layernorm", "ssim", 0.723284, 8859, 4430, "fastmri", false},
    {"imagenet_resnet_silu", "accuracy", 0.75445, 63008, 66159, "imagenet_resnet", false},
    {"imagenet_resnet_gelu", "accuracy", 0.76765, 63008, 66159, "imagenet_resnet", false},
    {"imagenet_resnet_large_bn_init", "accuracy", 0.76526, 63008, 66159, "imagenet_resnet", true},
    {"imagenet_vit_glu", "accuracy", 0.75738, 77520, 69768, "imagenet_vit", false},
    {"imagenet_vit_post_ln", "accuracy", 0.75312, 77520, 69768, "imagenet_vit", false},
    {"imagenet_vit_map", "accuracy", 0.77113, 77520, 69768, "imagenet_vit", false},
    {"librispeech_conformer_attention_temperature", "wer", 0.109977, 61068, 58015, "librispeech_conformer", false},
    {"librispeech_conformer_layernorm", "wer", 0.09731, 61068, 58015, "librispeech_conformer", true},
    {"librispeech_conformer_gelu", "wer", 0.094114, 61068, 58015, "librispeech_conformer", false},
    {"librispeech_deepspeech_tanh", "wer", 0.150883, 55506, 44405, "librispeech_deepspeech", false},
    {"librispeech_deepspeech_no_resnet", "wer", 0.131564, 55506, 44405, "librispeech_deepspeech", false},
    {"librispeech_deepspeech_norm_and_spec_aug", "wer", 0.14342, 55506, 44405, "librispeech_deepspeech", false},
    {"ogbg_gelu", "mean_average_precision", 0.27771, 18477, 12011, "ogbg", false},
    {"ogbg_silu", "mean_average_precision", 0.282178, 18477, 12011, "ogbg", false},
    {"ogbg_model_size", "mean_average_precision", 0.269446, 18477, 12011, "ogbg", true},
    {"wmt_post_ln", "bleu", 30.0779, 48151, 43336, "wmt", false},
    {"wmt_attention_temp", "bleu", 29.3379, 48151, 43336, "wmt", false},
    {"wmt_glu_tanh", "bleu", 29.5779, 48151, 43336, "wmt", true},
};

// The metric's known direction, or an error naming the file and workload.
bool direction_of(const std::string& metric, const std::string& where) {
  try {
    return metric_higher_is_better(metric);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
}

// A target that no measurement can be compared with (1e999 parses as infinity) is refused.
double finite_number(const nlohmann::json& entry, const char* key, const std::string& where) {
  if (!entry.contains(key) || !entry[key].is_number() || !std::isfinite(entry[key].get<double>())) {
    throw InputError(where + ": \"" + std::string(key) + "\" (a finite number) is required");
  }
  return entry[key].get<double>();
}

// The key names of one target entry in a file format, and its two words for a direction.
struct EntryKeys {
  const char* metric;  // "metric" / "target_metric_name"
  const char* goal;    // "direction" / "target_metric_goal"
  const char* max_word;
  const char* min_word;
  const char* target;  // "validation_target" / "validation_target_value"
};
constexpr EntryKeys kPacerKeys{"metric", "direction", "max", "min", "validation_target"};
// The reference's format (step_hint and anything else are read by its runner, not the scorer).
constexpr EntryKeys kReferenceKeys{"target_metric_name", "target_metric_goal", "maximize", "minimize",
                                   "validation_target_value"};

// Metric, direction (from the entry, else known by the metric's name) and validation target.
ScoringTarget parse_entry(const std::string& where, const std::string& name, const nlohmann::json& entry,
                          const EntryKeys& keys, std::vector<std::string>& warnings) {
  if (!entry.is_object()) throw InputError(where + ": expected an object");
  ScoringTarget t;
  t.workload = name;
  if (!entry.contains(keys.metric) || !entry[keys.metric].is_string()) {
    throw InputError(where + ": \"" + keys.metric + "\" (a string) is required");
  }
  t.metric = entry[keys.metric];
  // The metric as its column is named ("validation/loss"): targets are on the validation split,
  // so the prefix says nothing more; read as the metric, with a word.
  if (const std::string prefix = "validation/"; t.metric.rfind(prefix, 0) == 0 && t.metric.size() > prefix.size()) {
    warnings.push_back(where + ": metric '" + t.metric + "' read as '" + t.metric.substr(prefix.size()) +
                       "' (targets are on the validation split; the log's column is validation/<metric>)");
    t.metric = t.metric.substr(prefix.size());
  }
  if (entry.contains(keys.goal)) {
    const auto& g = entry[keys.goal];
    if (g != keys.max_word && g != keys.min_word) {
      throw InputError(where + ": \"" + keys.goal + "\" must be \"" + keys.max_word + "\" or \"" + keys.min_word + "\"");
    }
    t.higher_is_better = g == keys.max_word;
  } else {
    t.higher_is_better = direction_of(t.metric, where);
  }
  t.validation_target = finite_number(entry, keys.target, where);
  return t;
}

// entry[key] when given (a finite number > 0, else InputError naming it and its unit), else `otherwise`.
double positive_or(const nlohmann::json& entry, const char* key, const std::string& where, const char* unit,
                   double otherwise) {
  if (!entry.contains(key)) return otherwise;
  const auto& v = entry[key];
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    throw InputError(where + ": \"" + key + "\" must be a finite number > 0 (" + unit + ")");
  }
  return v.get<double>();
}

std::vector<std::string> string_list(const nlohmann::json& j, const std::string& key, const std::string& path) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) throw InputError(path + ": \"" + key + "\" must be a list of workload names");
  for (const auto& v : j[key]) {
    if (!v.is_string()) throw InputError(path + ": \"" + key + "\" must be a list of workload names");
    out.push_back(v);
  }
  return out;
}

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

TargetTable TargetTable::reference(const RulesPreset& rules) {
  TargetTable table;
  table.rules_name_ = rules.name;
  const bool v05 = rules.name == "v0.5";
  for (const auto& r : kReference) {
    ScoringTarget t;
    t.workload = r.name;
    t.metric = r.metric;
    t.higher_is_better = metric_higher_is_better(r.metric);
    t.validation_target = r.validation_target;
    t.time_budget = v05 ? r.budget_v05 : r.budget_v06;
    t.base_workload = r.base;
    if (t.time_budget <= 0) {
      t.time_budget = r.budget_v06;
      t.out_of_rules = "not a workload of the " + rules.name + " benchmark";
    } else if (v05 && !t.base_workload.empty() && !r.drawn_v05) {
      t.out_of_rules = "a v0.5 variant not drawn as a held-out workload";
    }
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
  const bool reference_format = j.contains("workloads") && j["workloads"].is_object() &&
                                (j.contains("base_workloads") || j.contains("benchmark_version"));
  if (reference_format) {
    add_reference_file(j, path);
    return;
  }
  for (const auto& [name, entry] : j.items()) {
    const std::string where = path + ": workload '" + name + "'";
    ScoringTarget t = parse_entry(where, name, entry, kPacerKeys, warnings_);
    const ScoringTarget* old = find(name);
    t.time_budget = positive_or(entry, "budget", where, "seconds", old ? old->time_budget : 0.0);
    t.seed_sd = positive_or(entry, "seed_sd", where, "the target's seed standard deviation", old ? old->seed_sd : 0.0);
    if (entry.contains("base_workload")) {
      if (!entry["base_workload"].is_string()) throw InputError(where + ": \"base_workload\" must be a string");
      t.base_workload = entry["base_workload"];
    }
    entries_[name] = t;
  }
  // A variant of itself or of a workload nobody knows is never scored: it used to drop out silently.
  for (const auto& [name, t] : entries_) {
    if (t.base_workload.empty()) continue;
    if (t.base_workload == name) {
      throw InputError(path + ": workload '" + name + "': \"base_workload\" names itself; leave it empty for a base workload");
    }
    if (!find(t.base_workload)) {
      throw InputError(path + ": workload '" + name + "': \"base_workload\" '" + t.base_workload +
                       "' is not a known workload (give its targets in this file too)");
    }
  }
}

// The reference's frozen targets file: {"benchmark_version", "base_workloads", "held_out_workloads",
// "workloads": {name: {target_metric_name, target_metric_goal, validation_target_value, step_hint}}}.
// Its base and held-out lists say what is scored, as in the reference scorer: logs of its other
// workloads are skipped. Budgets are not in the file: known workloads keep theirs.
void TargetTable::add_reference_file(const nlohmann::json& j, const std::string& path) {
  if (j.contains("benchmark_version")) {
    if (!j["benchmark_version"].is_string()) throw InputError(path + ": \"benchmark_version\" must be a string");
    const std::string version = "v" + j["benchmark_version"].get<std::string>();
    if ((version == "v0.5" || version == "v0.6") && version != rules_name_) {
      throw InputError(path + ": targets of benchmark version " + version.substr(1) + ", but the rules are " +
                       rules_name_ + ": add --rules " + version);
    }
    if (version != "v0.5" && version != "v0.6") {
      warnings_.push_back(path + ": targets of benchmark version " + version.substr(1) + ", scored under rules " +
                          rules_name_);
    }
  }
  const std::vector<std::string> bases = string_list(j, "base_workloads", path);
  const std::vector<std::string> held_out = string_list(j, "held_out_workloads", path);
  if (!held_out.empty() && rules_name_ != "v0.5") {
    throw InputError(path + ": held-out workloads are part of the v0.5 rules only, but the rules are " + rules_name_ +
                     ": add --rules v0.5");
  }
  const auto& workloads = j["workloads"];
  for (const auto& list : {bases, held_out}) {
    for (const auto& name : list) {
      if (!workloads.contains(name)) throw InputError(path + ": '" + name + "' is listed but has no entry in \"workloads\"");
    }
  }
  auto listed = [](const std::vector<std::string>& v, const std::string& name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  for (const auto& [name, entry] : workloads.items()) {
    ScoringTarget t = parse_entry(path + ": workload '" + name + "'", name, entry, kReferenceKeys, warnings_);
    const ScoringTarget* old = find(name);
    t.time_budget = old ? old->time_budget : 0.0;
    t.seed_sd = old ? old->seed_sd : 0.0;
    if (old) t.base_workload = old->base_workload;
    if (listed(bases, name)) {
      t.base_workload.clear();
    } else if (t.base_workload.empty()) {
      // A variant is named after its base: the longest listed base that prefixes "<base>_".
      for (const auto& b : bases) {
        if (name.size() > b.size() && name.compare(0, b.size() + 1, b + "_") == 0 && b.size() > t.base_workload.size()) {
          t.base_workload = b;
        }
      }
    }
    if (!bases.empty() && !listed(bases, name) && !listed(held_out, name)) {
      t.out_of_rules = "not among the base or held-out workloads of " + path;
    }
    if (t.time_budget <= 0 && t.out_of_rules.empty()) {
      warnings_.push_back(path + ": no budget known for '" + name +
                          "' (the reference file has none): the geometric-mean speedup leaves it out");
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
