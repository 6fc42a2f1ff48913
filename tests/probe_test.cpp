// The playbook's probes: the batch-size verdict (throughput knee and bottleneck), the stability
// rules (spikes, unstable runs, the largest stable learning rate, the clipping percentile), and
// both probes end to end through the CLI on the synthetic workload.
#include <gtest/gtest.h>

#include <filesystem>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "probe/memory_meter.h"
#include "probe/stability_probe.h"
#include "probe/throughput_probe.h"
#include "probe/stability_verdict.h"
#include "probe/throughput_verdict.h"
#include "support/cli_runner.h"
#include "support/headless_chromium.h"
#include "support/input_error.h"

namespace pacer {
namespace {

BatchSizeMeasurement measured(int64_t batch, double examples_per_second, double wait = 0.0, double pipeline = 0.0) {
  BatchSizeMeasurement m;
  m.batch_size = batch;
  m.steps = 10;
  m.examples_per_second = examples_per_second;
  m.step_seconds_median = static_cast<double>(batch) / examples_per_second;
  m.data_wait_fraction = wait;
  m.pipeline_examples_per_second = pipeline > 0 ? pipeline : 100.0 * examples_per_second;
  return m;
}

BatchSizeMeasurement does_not_fit(int64_t batch) {
  BatchSizeMeasurement m;
  m.batch_size = batch;
  m.fits = false;
  m.failure = "out of memory";
  return m;
}

TEST(ThroughputVerdict, KneeWhereDoublingStopsPaying) {
  // Throughput doubles up to 256, then flattens: compute-bound at 256.
  const auto v = throughput_verdict({measured(32, 1000), measured(64, 2000), measured(128, 3900), measured(256, 7000),
                                     measured(512, 7400), measured(1024, 7500)});
  ASSERT_TRUE(v.recommended_batch_size);
  EXPECT_EQ(*v.recommended_batch_size, 256);
  EXPECT_EQ(v.bottleneck, "compute");
  ASSERT_EQ(v.doubling_gain.size(), 6u);
  EXPECT_TRUE(std::isnan(v.doubling_gain[0]));
  EXPECT_DOUBLE_EQ(v.doubling_gain[1], 2.0);
}

// A busy machine's timings (the case: batch 16 at 182.6 ms/step median, 955 ms max,
// beside 1.68 ms at 64, "gain 307x") give a verdict flagged as unreliable, never a confident one.
TEST(ThroughputVerdict, NoisyTimingsAreFlaggedNotTrusted) {
  auto slow = measured(16, 16 / 0.18262);
  slow.step_seconds_min = 0.0011, slow.step_seconds_max = 0.955;
  const auto v = throughput_verdict({measured(8, 8 / 0.0011), slow, measured(32, 32 / 0.0012), measured(64, 64 / 0.00168)});
  EXPECT_EQ(v.unreliable_batch_sizes, std::vector<int64_t>{16});
  EXPECT_NE(v.explanation.find("Warning: the timings are unreliable (batch size 16: step times 1.10 to 955.00 ms"),
            std::string::npos)
      << v.explanation;
  // Steady timings: no warning.
  const auto steady = throughput_verdict({measured(32, 1000), measured(64, 2000), measured(128, 3900)});
  EXPECT_TRUE(steady.unreliable_batch_sizes.empty());
  EXPECT_EQ(steady.explanation.find("Warning"), std::string::npos);
}

TEST(ThroughputVerdict, DataBoundWhenTheStepWaitsOrThePipelineIsBarelyFaster) {
  auto v = throughput_verdict({measured(32, 1000, 0.05), measured(64, 1500, 0.40), measured(128, 1550, 0.60)});
  EXPECT_EQ(*v.recommended_batch_size, 64);
  EXPECT_EQ(v.bottleneck, "data");
  EXPECT_NE(v.explanation.find("waits for data 40%"), std::string::npos) << v.explanation;
  v = throughput_verdict({measured(32, 1000, 0.0, 1100), measured(64, 1050, 0.0, 1100)});
  EXPECT_EQ(v.bottleneck, "data");
}

TEST(ThroughputVerdict, MemoryBoundWhenStillGrowingAtTheLargestThatFits) {
  const auto v = throughput_verdict({measured(32, 1000), measured(64, 1900), measured(128, 3500), does_not_fit(256)});
  EXPECT_EQ(*v.recommended_batch_size, 128);
  EXPECT_EQ(v.bottleneck, "memory");
  EXPECT_NE(v.explanation.find("256 does not fit"), std::string::npos) << v.explanation;
  EXPECT_EQ(throughput_verdict({measured(32, 1000), does_not_fit(64)}).bottleneck, "memory");
}

TEST(ThroughputVerdict, UntestedWhenStillGrowingAtTheMaximumTriedAndNothingWhenNothingFits) {
  EXPECT_EQ(throughput_verdict({measured(32, 1000), measured(64, 1900)}).bottleneck, "untested");
  const auto v = throughput_verdict({does_not_fit(32)});
  EXPECT_FALSE(v.recommended_batch_size);
  EXPECT_NE(v.explanation.find("no batch size fits"), std::string::npos);
}

std::vector<double> falling(size_t n, double from = 2.3, double to = 0.5) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(from + (to - from) * static_cast<double>(i) / static_cast<double>(n - 1));
  return v;
}

TEST(StabilityVerdict, DetectsASpikeAgainstTheRecentMedian) {
  std::vector<double> losses = falling(100);
  losses[60] = 5.0;  // > 2x the median of steps 40..59
  losses[10] = 9.0;  // inside the first window: not judged
  EXPECT_EQ(detect_loss_spikes(losses), (std::vector<int64_t>{60}));
  losses[80] = std::nan("");
  EXPECT_EQ(detect_loss_spikes(losses), (std::vector<int64_t>{60, 80}));
}

TEST(StabilityVerdict, StableBlownUpNoProgressAndDiverged) {
  StabilityRun run;
  run.losses = falling(100);
  EXPECT_TRUE(assess_run(run).stable);
  run.losses[50] = 7.5;  // > 3x the first step's 2.3
  auto a = assess_run(run);
  EXPECT_FALSE(a.stable);
  EXPECT_NE(a.reason.find("blew up"), std::string::npos);
  run.losses = std::vector<double>(100, 2.3);
  a = assess_run(run);
  EXPECT_FALSE(a.stable);
  EXPECT_NE(a.reason.find("no progress"), std::string::npos);
  run.losses = falling(10);
  run.diverged = true;
  run.message = "non-finite training loss at step 11";
  a = assess_run(run);
  EXPECT_FALSE(a.stable);
  EXPECT_NE(a.reason.find("diverged: non-finite"), std::string::npos);
}

TEST(StabilityVerdict, LargestStableRateIsBelowTheFirstUnstableOne) {
  auto run = [](double lr, bool stable, double final_loss) {
    StabilityRun r;
    r.learning_rate = lr;
    r.losses = stable ? falling(50, 2.3, final_loss) : std::vector<double>(50, 2.5);
    return r;
  };
  // Unordered input; 0.8 is stable again but above the divergence point.
  const auto v = learning_rate_verdict({run(0.4, false, 0), run(0.1, true, 0.9), run(0.05, true, 1.2),
                                        run(0.2, true, 0.6), run(0.8, true, 0.4)});
  ASSERT_TRUE(v.largest_stable && v.divergence_point && v.best);
  EXPECT_DOUBLE_EQ(*v.largest_stable, 0.2);
  EXPECT_DOUBLE_EQ(*v.divergence_point, 0.4);
  EXPECT_DOUBLE_EQ(*v.best, 0.8);  // the lowest final loss among stable runs
  const auto all_stable = learning_rate_verdict({run(0.1, true, 1.0), run(0.2, true, 0.8)});
  EXPECT_FALSE(all_stable.divergence_point);
  EXPECT_NE(all_stable.explanation.find("sweep higher"), std::string::npos);
  EXPECT_FALSE(learning_rate_verdict({run(0.1, false, 0)}).largest_stable);
}

TEST(StabilityVerdict, PercentileInterpolatesLikeNumpy) {
  // numpy.percentile([1, 2, 3, 4, 10], 90) == 7.6; NaNs are ignored.
  EXPECT_NEAR(percentile({10, 1, 3, 2, 4, std::nan("")}, 90), 7.6, 1e-12);
  EXPECT_DOUBLE_EQ(percentile({5}, 90), 5.0);
  EXPECT_TRUE(std::isnan(percentile({}, 50)));
}

// The stability probe's own checks, which `pacer probe --stability` runs before it writes --out;
// the options both probes share (ProbeSetup) are one record, filled once for either.
TEST(StabilityProbeOptions, TooFewStepsOrAWarmupThatIsNotPositiveIsRefusedNamingTheOption) {
  StabilityProbeOptions o;
  EXPECT_NO_THROW(check_stability_probe_options(o));
  o.warmup_steps = {10, 0};
  EXPECT_NE(testing::input_error_of([&] { check_stability_probe_options(o); }).find("--warmups"), std::string::npos);
  o.warmup_steps = {10};
  o.steps = 9;
  EXPECT_NE(testing::input_error_of([&] { check_stability_probe_options(o); }).find("--steps"), std::string::npos);
  ProbeSetup setup;
  setup.device = "cpu";
  setup.seed = 3;
  ThroughputProbeOptions throughput;
  static_cast<ProbeSetup&>(throughput) = setup;
  EXPECT_EQ(throughput.device, "cpu");
  EXPECT_EQ(throughput.seed, 3u);
}

TEST(MemoryMeter, ParsesSizesAndReadsThisProcessPeak) {
  EXPECT_EQ(parse_memory_size("512M"), 512LL << 20);
  EXPECT_EQ(parse_memory_size("1.5G"), 3LL << 29);
  EXPECT_EQ(parse_memory_size("2GiB"), 2LL << 30);
  EXPECT_EQ(parse_memory_size("4096"), 4096);
  EXPECT_THROW(parse_memory_size("lots"), InputError);
  EXPECT_THROW(parse_memory_size("-1G"), InputError);
  EXPECT_THROW(parse_memory_size("3X"), InputError);
  const auto before = peak_rss_bytes();
  ASSERT_TRUE(before);
  std::vector<char> block(64 << 20, 1);  // touch 64 MiB
  // Current first: the peak read after it covers it (read the other way round, memory that other
  // threads take in between makes the current figure the larger; clang evaluates the arguments
  // of one comparison in that order).
  const int64_t current = *current_rss_bytes();
  EXPECT_GE(*peak_rss_bytes(), current - 1);
  EXPECT_GE(*peak_rss_bytes(), static_cast<int64_t>(block.size()));
  EXPECT_EQ(format_bytes(3LL << 29), "1.50 GiB");
}

class ProbeCliTest : public testing::CliFixture {};

TEST_F(ProbeCliTest, BatchSizeProbeWritesTableJsonAndPage) {
  const auto r = pacer("probe -w synthetic_regression -a sgd --min-batch-size 16 --max-batch-size 128 --steps 5 "
                       "--seconds 1 --threads 1 -q --out '" + dir_ + "/probe'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("verdict: batch size"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(testing::read_file(dir_ + "/probe/probe.json"));
  ASSERT_EQ(j["measurements"].size(), 4u);  // 16, 32, 64, 128
  for (const auto& m : j["measurements"]) {
    EXPECT_TRUE(m["fits"].get<bool>());
    EXPECT_GT(m["examples_per_second"].get<double>(), 0.0);
    EXPECT_GT(m["peak_memory_bytes"].get<double>(), 0.0);
  }
  EXPECT_FALSE(j["verdict"]["recommended_batch_size"].is_null());
  // The page as Chromium parses it: verdict, one row per batch size, both charts.
  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not installed (scripts/setup.sh installs the Debian package chromium)";
  std::string dom;
  ASSERT_EQ(testing::chromium_dump_dom(chromium, dir_ + "/probe/probe.html", dir_, dom), 0);
  EXPECT_NE(dom.find("<p id=\"verdict\""), std::string::npos) << dom.substr(0, 500);
  const size_t table = dom.find("<table id=\"batch-sizes\">");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = dom.substr(table, dom.find("</table>", table) - table);
  size_t n = 0;
  for (size_t at = rows.find("<tr"); at != std::string::npos; at = rows.find("<tr", at + 1)) ++n;
  EXPECT_EQ(n, 1u + 4u);
  EXPECT_NE(dom.find("id=\"throughput\""), std::string::npos);
  EXPECT_NE(dom.find("id=\"step-time\""), std::string::npos);
}

TEST_F(ProbeCliTest, MemoryLimitStopsTheSweep) {
  const auto r = pacer("probe -w synthetic_regression -a sgd --batch-sizes 16,32 --steps 3 --threads 1 -q "
                       "--memory-limit 1M --out '" + dir_ + "/probe'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::read_file(dir_ + "/probe/probe.json"));
  ASSERT_EQ(j["measurements"].size(), 1u);  // the first exceeds 1 MiB of RSS: the sweep stops
  EXPECT_FALSE(j["measurements"][0]["fits"].get<bool>());
  EXPECT_NE(j["measurements"][0]["failure"].get<std::string>().find("--memory-limit"), std::string::npos);
  EXPECT_TRUE(j["verdict"]["recommended_batch_size"].is_null());
}

TEST_F(ProbeCliTest, StabilityProbeFindsTheDivergencePointAndTestsTheFixes) {
  // SGD on the teacher-student regression: rates past ~2/lambda_max diverge.
  const auto r = pacer("probe --stability -w synthetic_regression -a sgd --learning-rates 0.01,0.05,0.2,1,5,25 "
                       "--steps 40 --threads 1 -q --out '" + dir_ + "/stab'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::read_file(dir_ + "/stab/stability.json"));
  ASSERT_EQ(j["sweep"].size(), 6u);
  const auto& v = j["verdict"];
  ASSERT_FALSE(v["largest_stable_learning_rate"].is_null()) << r.out;
  ASSERT_FALSE(v["divergence_learning_rate"].is_null()) << r.out;
  EXPECT_LT(v["largest_stable_learning_rate"].get<double>(), v["divergence_learning_rate"].get<double>());
  EXPECT_FALSE(j["sweep"][5]["stable"].get<bool>());  // lr 25
  EXPECT_TRUE(j["sweep"][0]["stable"].get<bool>());   // lr 0.01
  EXPECT_EQ(j["sweep"][0]["train/loss"].size(), 40u);
  EXPECT_EQ(j["sweep"][0]["train/grad_norm"].size(), 40u);  // logged every step
  EXPECT_FALSE(j["warmup"]["runs"].empty());
  EXPECT_FALSE(j["clipping"]["threshold"].is_null());
  EXPECT_NE(r.out.find("clipping: grad_clip"), std::string::npos) << r.out;
  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not installed (scripts/setup.sh installs the Debian package chromium)";
  std::string dom;
  ASSERT_EQ(testing::chromium_dump_dom(chromium, dir_ + "/stab/stability.html", dir_, dom), 0);
  for (const char* id : {"<ul id=\"verdicts\"", "<table id=\"sweep\">", "id=\"final-loss\"", "id=\"loss-curves\"",
                         "id=\"grad-norms\"", "<table id=\"fixes\">", "id=\"fixes\""}) {
    EXPECT_NE(dom.find(id), std::string::npos) << id;
  }
}

TEST_F(ProbeCliTest, BadInputIsAnInputError) {
  EXPECT_EQ(pacer("probe -w nope -a sgd -q --out '" + dir_ + "/p'").code, 2);
  EXPECT_EQ(pacer("probe -w synthetic_regression -a sgd --memory-limit lots -q --out '" + dir_ + "/p'").code, 2);
  EXPECT_EQ(pacer("probe -w synthetic_regression -a sgd --min-batch-size 64 --max-batch-size 8 -q").code, 2);
  const auto r = pacer("probe --stability -w synthetic_regression -a sgd --lr-min 1 --lr-max 0.1 -q");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--lr-min"), std::string::npos) << r.err;
  // Options that can be checked without running anything are refused before --out is created.
  for (const std::string& bad : {std::string("--stability --warmups 0"), std::string("--stability --clock cpu"),
                                 std::string("--workload-option nope=1"), std::string("--memory-limit lots")}) {
    const std::string out = dir_ + "/untouched";
    const auto refused = pacer("probe -w synthetic_regression -a sgd " + bad + " -q --out '" + out + "'");
    EXPECT_EQ(refused.code, 2) << bad;
    EXPECT_FALSE(std::filesystem::exists(out)) << bad;
  }
}

}  // namespace
}  // namespace pacer
