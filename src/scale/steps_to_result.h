#pragma once
// Steps-to-result at one batch size, with the semantics of the data-parallelism study (Shallue et
// al.): over the non-diverged trials, the smallest step of the first evaluation strictly better
// than the goal; ties go to the smaller trial id. Torch-free.
//
//   pacer::StepsToResult r = pacer::steps_to_result(trials, 0.88, /*higher_is_better=*/true);
//   if (r.steps) std::printf("%lld steps (trial %lld)\n", *r.steps, *r.trial_id);
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace pacer {

struct ScalingTrial {
  int64_t trial_id = 0;
  bool diverged = false;
  std::vector<std::pair<int64_t, double>> evals;  // (global step, metric value), in step order
};

struct StepsToResult {
  std::optional<int64_t> steps;     // none: no trial reached the goal
  std::optional<int64_t> trial_id;  // the trial that set it
  int trials = 0, diverged = 0, reached = 0;
};

// The first step at which one trial's metric is strictly better than the goal.
std::optional<int64_t> first_step_better_than(const ScalingTrial& trial, double goal, bool higher_is_better);

StepsToResult steps_to_result(const std::vector<ScalingTrial>& trials, double goal, bool higher_is_better);

}  // namespace pacer
