// Learning-rate schedules (algorithms/schedules.h) against values computed independently in
// Python from their definitions by tools/golden/generate_optimizer_golden.py
// (tests/golden/schedules.json; the cosine one there is also cross-checked against
// torch.optim.lr_scheduler), plus hand-computed properties.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/schedules.h"

namespace pacer {
namespace {

const nlohmann::json& golden() {
  static const nlohmann::json data = [] {
    const std::string path = std::string(PACER_SOURCE_DIR) + "/tests/golden/schedules.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
  }();
  return data;
}

LearningRateSchedule from_golden(const nlohmann::json& c) {
  const std::string kind = c["kind"].get<std::string>();
  const double lr = c["lr"].get<double>();
  if (kind == "warmup_cosine")
    return LearningRateSchedule::warmup_cosine(lr, c["warmup_steps"].get<int64_t>(), c["step_hint"].get<int64_t>());
  if (kind == "warmup_linear_decay")
    return LearningRateSchedule::warmup_linear_decay(lr, c["warmup_steps"].get<int64_t>(),
                                                     c["decay_steps"].get<int64_t>(), c["end_factor"].get<double>());
  if (kind == "constant") return LearningRateSchedule::constant(lr);
  throw std::runtime_error("unknown schedule kind " + kind);
}

TEST(SchedulesGolden, MatchEveryRecordedStep) {
  const auto& cases = golden()["schedules"];
  ASSERT_GE(cases.size(), 9u);
  int kinds_seen[3] = {0, 0, 0};
  for (const auto& c : cases) {
    const std::string name = c["name"].get<std::string>();
    const LearningRateSchedule schedule = from_golden(c);
    kinds_seen[static_cast<int>(schedule.kind)]++;
    const auto values = c["values"].get<std::vector<double>>();
    ASSERT_FALSE(values.empty()) << name;
    const double lr = c["lr"].get<double>();
    for (size_t step = 0; step < values.size(); ++step) {
      EXPECT_NEAR(schedule.at(static_cast<int64_t>(step)), values[step], 1e-14 * std::abs(lr) + 1e-300)
          << name << " at step " << step << " (" << schedule.describe() << ")";
    }
  }
  EXPECT_GT(kinds_seen[static_cast<int>(LearningRateSchedule::Kind::constant)], 0);
  EXPECT_GT(kinds_seen[static_cast<int>(LearningRateSchedule::Kind::warmup_cosine)], 0);
  EXPECT_GT(kinds_seen[static_cast<int>(LearningRateSchedule::Kind::warmup_linear_decay)], 0);
}

TEST(WarmupCosine, HandComputedPoints) {
  const auto s = LearningRateSchedule::warmup_cosine(0.002, /*warmup_steps=*/100, /*step_hint=*/2000);
  EXPECT_EQ(s.at(0), 0.0);                  // warmup starts at 0
  EXPECT_DOUBLE_EQ(s.at(50), 0.001);        // half way through warmup
  EXPECT_DOUBLE_EQ(s.at(99), 0.002 * 0.99);
  EXPECT_DOUBLE_EQ(s.at(100), 0.002);       // peak at the end of warmup
  EXPECT_NEAR(s.at(100 + 950), 0.001, 1e-15);  // half way through the decay: cos(pi/2) = 0
  EXPECT_NEAR(s.at(100 + 475), 0.001 * (1.0 + std::sqrt(0.5)), 1e-15);  // a quarter: cos(pi/4)
  EXPECT_GT(s.at(1999), 0.0);
  EXPECT_LT(s.at(1999), 1e-8);
  EXPECT_EQ(s.at(2000), 0.0);  // 0 at step_hint and after
  EXPECT_EQ(s.at(2001), 0.0);
  EXPECT_EQ(s.at(1000000), 0.0);
}

TEST(WarmupCosine, IsMonotoneUpThenDown) {
  const auto s = LearningRateSchedule::warmup_cosine(0.5, 20, 300);
  for (int64_t step = 1; step <= 20; ++step) EXPECT_GT(s.at(step), s.at(step - 1)) << step;
  for (int64_t step = 21; step <= 300; ++step) EXPECT_LT(s.at(step), s.at(step - 1)) << step;
}

TEST(WarmupCosine, NoWarmupStartsAtThePeak) {
  const auto s = LearningRateSchedule::warmup_cosine(0.1, 0, 50);
  EXPECT_DOUBLE_EQ(s.at(0), 0.1);
  EXPECT_NEAR(s.at(25), 0.05, 1e-16);
  EXPECT_EQ(s.at(50), 0.0);
}

TEST(WarmupCosine, StepHintWithinWarmupDecaysOverOneStep) {
  // decay = max(1, step_hint - warmup): the peak is reached, then the schedule drops to 0.
  const auto s = LearningRateSchedule::warmup_cosine(0.01, 10, 4);
  EXPECT_EQ(s.decay_steps, 1);
  EXPECT_DOUBLE_EQ(s.at(5), 0.005);
  EXPECT_DOUBLE_EQ(s.at(10), 0.01);
  EXPECT_EQ(s.at(11), 0.0);
}

TEST(WarmupLinearDecay, HandComputedPoints) {
  const auto s = LearningRateSchedule::warmup_linear_decay(0.1, /*warmup_steps=*/10, /*decay_steps=*/50,
                                                           /*end_factor=*/0.1);
  EXPECT_EQ(s.at(0), 0.0);
  EXPECT_DOUBLE_EQ(s.at(5), 0.05);
  EXPECT_DOUBLE_EQ(s.at(10), 0.1);                 // peak at the end of warmup
  EXPECT_NEAR(s.at(35), 0.1 * (1.0 - 0.5 * 0.9), 1e-16);  // half way: lr * (1 + end_factor) / 2
  EXPECT_NEAR(s.at(59), 0.1 * (1.0 - 49.0 / 50.0 * 0.9), 1e-16);
  EXPECT_DOUBLE_EQ(s.at(60), 0.1 * 0.1);            // end_factor * lr once decay is over
  EXPECT_DOUBLE_EQ(s.at(61), 0.1 * 0.1);
  EXPECT_DOUBLE_EQ(s.at(100000), 0.1 * 0.1);
}

TEST(WarmupLinearDecay, ZeroDecayStepsJumpsToEndFactor) {
  const auto s = LearningRateSchedule::warmup_linear_decay(0.02, 5, 0, 0.5);
  EXPECT_DOUBLE_EQ(s.at(4), 0.02 * 0.8);
  EXPECT_DOUBLE_EQ(s.at(5), 0.01);
  EXPECT_DOUBLE_EQ(s.at(50), 0.01);
}

TEST(WarmupLinearDecay, EndFactorZeroReachesZero) {
  const auto s = LearningRateSchedule::warmup_linear_decay(0.05, 0, 20, 0.0);
  EXPECT_DOUBLE_EQ(s.at(0), 0.05);
  EXPECT_DOUBLE_EQ(s.at(10), 0.025);
  EXPECT_EQ(s.at(20), 0.0);
  EXPECT_EQ(s.at(21), 0.0);
}

TEST(ConstantSchedule, IsConstant) {
  const auto s = LearningRateSchedule::constant(0.007);
  for (int64_t step : {0, 1, 10, 1000, 1000000}) EXPECT_EQ(s.at(step), 0.007);
  EXPECT_EQ(s.kind, LearningRateSchedule::Kind::constant);
}

TEST(Schedules, DescribeMentionsTheShape) {
  EXPECT_NE(LearningRateSchedule::constant(0.5).describe().find("constant"), std::string::npos);
  EXPECT_NE(LearningRateSchedule::warmup_cosine(0.5, 3, 10).describe().find("cosine"), std::string::npos);
  EXPECT_NE(LearningRateSchedule::warmup_linear_decay(0.5, 3, 10, 0.1).describe().find("linear"), std::string::npos);
}

}  // namespace
}  // namespace pacer
