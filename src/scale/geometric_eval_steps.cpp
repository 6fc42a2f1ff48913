#include "scale/geometric_eval_steps.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace pacer {

std::vector<int64_t> geometric_eval_steps(int64_t budget, int64_t evals) {
  if (budget < 1 || evals < 1) {
    throw InputError("eval schedule: budget (" + std::to_string(budget) + ") and evals (" + std::to_string(evals) +
                     ") must be at least 1");
  }
  std::vector<int64_t> steps;
  for (int64_t i = 1; i <= evals; ++i) {
    // budget^(i / evals), rounded; i = evals gives the budget exactly.
    const int64_t step = i == evals ? budget
                                    : static_cast<int64_t>(std::llround(std::pow(static_cast<double>(budget),
                                                                                 static_cast<double>(i) / evals)));
    if (step >= 1 && (steps.empty() || step > steps.back())) steps.push_back(step);
  }
  return steps;
}

}  // namespace pacer
