#pragma once
// Metrics as the study store keeps them (its evals' metrics column): one JSON object, a
// non-finite value written as null and read back as NaN. Torch-free; not part of the SDK.
//
//   const std::string text = pacer::metrics_to_json({{"validation/loss", 0.3}});  // {"validation/loss":0.3}
//   pacer::Metrics back = pacer::metrics_from_json(text, "runs/tune.db: trial 4 eval 0");
#include <string>

#include "core/eval_record.h"

namespace pacer {

std::string metrics_to_json(const Metrics& metrics);
// Numbers, and null as NaN; other values are left out. InputError naming `origin` when the text
// is not a JSON object (or breaks core/json_input.h's limits).
Metrics metrics_from_json(const std::string& text, const std::string& origin);

}  // namespace pacer
