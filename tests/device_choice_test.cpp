// The GPU rules that hold on any machine: each rank's own GPU, the cpu clock refused on a GPU,
// Adasum over Gloo refused on a GPU, and every clock read of a trial after a device
// synchronization (counted by the runtime's test hook; on the CPU a synchronization is a no-op).
#include <gtest/gtest.h>

#include <string>

#include "core/device_choice.h"
#include "core/error.h"
#include "catalog/combiner_names.h"
#include "support/cli_runner.h"

namespace {

TEST(DeviceChoice, EachLocalRankGetsItsOwnGpu) {
  EXPECT_EQ(pacer::device_for_rank("auto", 0, 4), "cuda:0");
  EXPECT_EQ(pacer::device_for_rank("auto", 3, 4), "cuda:3");
  EXPECT_EQ(pacer::device_for_rank("cuda", 5, 4), "cuda:1");  // more ranks than GPUs: they share, evenly
  EXPECT_EQ(pacer::device_for_rank("cuda:2", 3, 4), "cuda:2");  // asked for by number: as asked
  EXPECT_EQ(pacer::device_for_rank("cpu", 3, 4), "cpu");
  EXPECT_EQ(pacer::device_for_rank("auto", 3, 0), "cpu");
  EXPECT_EQ(pacer::device_for_rank("", 1, 2), "cuda:1");
  EXPECT_EQ(pacer::device_for_rank("cuda", -1, 0), "cuda:0");  // no GPU visible: the runtime refuses it
  EXPECT_TRUE(pacer::is_cuda_device_name("cuda:1"));
  EXPECT_FALSE(pacer::is_cuda_device_name("cpu"));
}

TEST(DeviceChoice, TheCpuClockIsRefusedOnAGpu) {
  EXPECT_THROW(pacer::check_clock_for_device(pacer::ClockKind::cpu, "cuda:0"), pacer::InputError);
  EXPECT_THROW(pacer::check_clock_for_device(pacer::ClockKind::cpu, "cuda"), pacer::InputError);
  EXPECT_NO_THROW(pacer::check_clock_for_device(pacer::ClockKind::wall, "cuda:0"));
  EXPECT_NO_THROW(pacer::check_clock_for_device(pacer::ClockKind::cpu, "cpu"));
  EXPECT_NO_THROW(pacer::check_clock_for_device(pacer::ClockKind::cpu, "auto"));  // resolved first by the trial
}

TEST(DeviceChoice, AdasumOverGlooIsRefusedOnAGpu) {
  EXPECT_THROW(pacer::check_backend_for_device("gloo", true, "adasum"), pacer::InputError);
  EXPECT_NO_THROW(pacer::check_backend_for_device("nccl", true, "adasum"));
  EXPECT_NO_THROW(pacer::check_backend_for_device("auto", true, "adasum"));
  EXPECT_NO_THROW(pacer::check_backend_for_device("gloo", false, "adasum"));
  EXPECT_NO_THROW(pacer::check_backend_for_device("gloo", true, "mean"));
}

class DeviceCliTest : public pacer::testing::CliFixture {};

TEST_F(DeviceCliTest, CpuClockOnCudaIsBadInputBeforeAnyWork) {
  const auto r = pacer("run -w synthetic_regression -a sgd --device cuda --clock cpu --max-steps 2 --out '" + dir_ +
                       "/run'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--clock cpu on cuda"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/run/trial.json"));
}

}  // namespace
