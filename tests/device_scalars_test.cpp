// The per-tensor scalars of LAMB, Adafactor, SAM, Shampoo and gradient clipping stay on the device
// on a GPU (algorithms/device_scalars.h) and are read back as doubles on a CPU. Through the test
// hook the device path runs on the CPU too, so both are compared here: the same trial, both ways,
// ends within float rounding of itself. The CPU's own path is what the golden tests pin.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algorithms/device_scalars.h"
#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "train/trial_runner.h"
#include "workloads/registry.h"

namespace pacer {
namespace {

struct HookOn {
  HookOn() { set_scalars_on_device_for_testing(true); }
  ~HookOn() { set_scalars_on_device_for_testing(false); }
};

TrialResult run_short(const std::string& algorithm_name, const Hyperparameters& overrides) {
  auto workload = create_workload("synthetic_regression");
  auto algorithm = create_algorithm(algorithm_name);
  TrialOptions options;
  options.seed = 3;
  options.spec.device = "cpu";
  options.spec.max_steps = 40;
  options.spec.eval_every_steps = 20;
  options.spec.stop_at_targets = false;
  // A budget no run reaches: on a busy machine the workload's own (a few seconds) ended one of the
  // two runs early, and their eval counts differed (a time limit is not what this compares).
  options.spec.time_budget = 1e9;
  return run_trial(*workload, *algorithm, overrides, options);  // the defaults fill the rest
}

double validation_loss(const TrialResult& r) { return r.evals.back().metrics.at("validation/loss"); }

TEST(DeviceScalars, TheDevicePathEndsWhereTheHostPathEnds) {
  struct Case {
    std::string algorithm;
    Hyperparameters overrides;
  };
  Hyperparameters clipped, shampoo, sam_adaptive;
  clipped.set("grad_clip", 0.05);  // small enough to clip at every step
  shampoo.set("precondition_frequency", 5);
  shampoo.set("start_preconditioning_step", 5);
  std::vector<Case> cases = {{"lamb", {}}, {"adafactor", {}}, {"sam", {}}, {"shampoo", shampoo},
                             {"adamw", clipped}, {"sam", clipped}};
  for (const auto& c : cases) {
    const TrialResult host = run_short(c.algorithm, c.overrides);
    const int64_t taken_before = scalars_on_device_count();
    TrialResult device;
    {
      HookOn on;
      device = run_short(c.algorithm, c.overrides);
    }
    EXPECT_GT(scalars_on_device_count(), taken_before) << c.algorithm << ": the device path was not taken";
    ASSERT_EQ(host.evals.size(), device.evals.size()) << c.algorithm;
    const double a = validation_loss(host), b = validation_loss(device);
    EXPECT_TRUE(std::isfinite(a)) << c.algorithm;
    EXPECT_NEAR(a, b, 1e-4 * std::max(1.0, std::abs(a))) << c.algorithm << " " << c.overrides.to_json(0);
  }
}

TEST(DeviceScalars, OnlyACudaTensorTakesTheDevicePathWithoutTheHook) {
  const int64_t before = scalars_on_device_count();
  EXPECT_FALSE(scalars_stay_on_device(at::ones({2})));
  EXPECT_EQ(scalars_on_device_count(), before);
  HookOn on;
  EXPECT_TRUE(scalars_stay_on_device(at::ones({2})));
  EXPECT_EQ(scalars_on_device_count(), before + 1);
}

}  // namespace
}  // namespace pacer
