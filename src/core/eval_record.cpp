#include "core/eval_record.h"

#include <cmath>

namespace pacer {

std::optional<double> finite_metric(const EvalRecord& eval, const std::string& name) {
  const auto it = eval.metrics.find(name);
  if (it == eval.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

}  // namespace pacer
