// Suites from the command line: `pacer list` shows the new workloads with modality and variants,
// and `pacer tune --suite --rules v0.5` adds one held-out variant per base workload, drawn from a
// recorded seed, to the studies it plans.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "support/cli_runner.h"
#include "workloads/registry.h"
#include "catalog/suites.h"

namespace {

using pacer::testing::CliFixture;
using pacer::testing::read_file;

class SuiteCliTest : public CliFixture {};

TEST_F(SuiteCliTest, ListShowsModalitiesVariantsAndSuites) {
  const auto r = pacer("list workloads");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* text : {"fmnist_resnet", "fmnist_vit", "fmnist_recon", "fortunes_lm", "language modelling",
                           "image reconstruction", "ssim", "variants: fmnist_resnet_silu, fmnist_resnet_large_bn_init",
                           "small", "variants"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
}

TEST_F(SuiteCliTest, RulesV05DrawsAndRecordsHeldOutVariants) {
  const std::string store = dir_ + "/suite.db", out = dir_ + "/out";
  const auto r = pacer("tune --suite quick -a nadamw --space '" + std::string(PACER_SOURCE_DIR) +
                       "/spaces/nadamw.json' --rules v0.5 --held-out-seed 3 --studies 1 --trials 1 --max-steps 2 "
                       "--eval-every 2 --threads 1 --store '" + store + "' --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const auto drawn = pacer::draw_held_out_variants(pacer::workload_suite("quick"), 3);
  ASSERT_EQ(drawn.size(), 1u);  // only fmnist_mlp has variants in the quick suite
  EXPECT_NE((r.out + r.err).find("held-out variants (v0.5, seed 3): " + drawn[0]), std::string::npos) << r.out << r.err;
  const auto record = nlohmann::json::parse(read_file(out + "/held_out_workloads.json"));
  EXPECT_EQ(record["seed"], "3");
  EXPECT_EQ(record["held_out_workloads"], nlohmann::json(drawn));
  const auto list = pacer("study list '" + store + "' --json");
  ASSERT_EQ(list.code, 0) << list.err;
  std::set<std::string> workloads;
  for (const auto& s : nlohmann::json::parse(list.out)) workloads.insert(s["workload"].get<std::string>());
  EXPECT_EQ(workloads, (std::set<std::string>{"fmnist_mlp", "synthetic_regression", drawn[0]}));
}

}  // namespace
