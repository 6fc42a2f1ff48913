// Unit tests of the Signum plugin's update rule, against the installed SDK's test support
// (<pacer/testing.h>, the CMake target pacer::testing): the library this project builds, loaded as
// pacer loads it, driven with gradients chosen here. Build and run with the plugin:
//   cmake --build build && ./build/signum_test
#include <pacer/testing.h>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

const pacer::RuleHarness::Factory kSignum = pacer::algorithm_factory(SIGNUM_LIBRARY);

// No warmup, so the first step's learning rate is the peak.
pacer::Hyperparameters point(double weight_decay = 0.0) {
  return {{"learning_rate", 0.1}, {"beta", 0.9}, {"weight_decay", weight_decay}, {"warmup_factor", 0.0}};
}

TEST(Signum, StepsByTheSignOfTheMomentumAverageWhateverTheGradientsSize) {
  pacer::RuleHarness h(kSignum, {at::ones({3}, at::kDouble)}, point());
  h.step({at::tensor({0.5, -2e-6, 3.0}, at::kDouble)});
  EXPECT_TRUE(h.parameters()[0].allclose(at::tensor({0.9, 1.1, 0.9}, at::kDouble))) << h.parameters()[0];
  // m = 0.9 * 0.05 + 0.1 * (-1) < 0: the sign flips at step 1, at the cosine's learning rate there.
  h.step({at::full({3}, -1.0, at::kDouble)});
  const double lr1 = 0.1 * 0.5 * (1.0 + std::cos(M_PI * 1.0 / 1000.0));  // step hint 1000
  EXPECT_NEAR(h.parameters()[0][0].item<double>(), 0.9 + lr1, 1e-12);
}

TEST(Signum, DecaysTheWeightsBeforeTheStep) {
  pacer::RuleHarness h(kSignum, {at::full({2}, 2.0, at::kDouble)}, point(/*weight_decay=*/0.5));
  h.step({at::ones({2}, at::kDouble)});
  EXPECT_NEAR(h.parameters()[0][0].item<double>(), 2.0 * (1.0 - 0.1 * 0.5) - 0.1, 1e-12);
}

TEST(Signum, AResumeFromItsStateContinuesExactly) {
  const auto quadratic = [](const std::vector<at::Tensor>& p) { return std::vector<at::Tensor>{p[0] - 0.3}; };
  pacer::RuleHarness whole(kSignum, {at::linspace(-1, 1, 5, at::kDouble)}, point());
  for (int i = 0; i < 5; ++i) whole.step(quadratic);
  pacer::RuleHarness resumed = whole.resumed();
  for (int i = 0; i < 5; ++i) {
    whole.step(quadratic);
    resumed.step(quadratic);
  }
  EXPECT_TRUE(whole.parameters()[0].equal(resumed.parameters()[0]));
}

}  // namespace
