// Samplers: the reference Halton sequence against golden values from an independent numpy
// implementation (tools/golden/generate_halton_golden.py), value mapping, random/grid/list, and
// the seeded permutation that orders a study's points.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tune/halton.h"
#include "tune/sampler.h"
#include "tune/search_space.h"

namespace pacer {
namespace {

const nlohmann::ordered_json& golden() {
  static const nlohmann::ordered_json doc = [] {
    std::ifstream in(std::string(PACER_SOURCE_DIR) + "/tests/golden/halton.json");
    return nlohmann::ordered_json::parse(in);
  }();
  return doc;
}

TEST(HaltonTest, BasesAreTheLargestOddPrimesBelow1000Except997) {
  for (const auto& [dims, expected] : golden()["bases"].items()) {
    EXPECT_EQ(halton_bases(std::stoi(dims)), expected.get<std::vector<int>>()) << dims << " dims";
  }
  EXPECT_EQ(halton_bases(3), (std::vector<int>{977, 983, 991}));
  EXPECT_THROW(halton_bases(0), InputError);
  EXPECT_THROW(halton_bases(200), InputError);
}

TEST(HaltonTest, PointsMatchTheNumpyReferenceImplementation) {
  int cases = 0;
  for (const auto& c : golden()["points"]) {
    const int dims = c["num_dims"];
    const int64_t first = c["first"], count = c["count"];
    const auto points = halton_unit_points(dims, first, count);
    ASSERT_EQ(points.size(), static_cast<size_t>(count));
    for (int64_t n = 0; n < count; ++n) {
      for (int d = 0; d < dims; ++d) {
        const double expected = c["values"][n][d];
        EXPECT_NEAR(points[n][d], expected, 1e-12) << dims << " dims, point " << first + n << ", dim " << d;
        EXPECT_GE(points[n][d], 0.0);
        EXPECT_LT(points[n][d], 1.0);
      }
    }
    ++cases;
  }
  EXPECT_GE(cases, 20);
}

TEST(HaltonTest, ConsecutiveBlocksContinueTheSameSequence) {
  const auto all = halton_unit_points(3, 0, 30);
  const auto tail = halton_unit_points(3, 10, 20);
  for (int n = 0; n < 20; ++n) EXPECT_EQ(all[10 + n], tail[n]);
  std::set<std::vector<double>> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), 30u);
}

TEST(SamplerTest, HaltonMapsLogLinearAndDiscreteAsTheReference) {
  const auto& mapped = golden()["mapped"];
  const SearchSpace space = SearchSpace::from_json_text(mapped["space"].dump(), "golden");
  const auto points = make_sampler("halton", {})->sample(space, 0, mapped["points"].size());
  for (size_t i = 0; i < points.size(); ++i) {
    size_t d = 0;
    for (const auto& [name, value] : mapped["points"][i].items()) {
      ASSERT_EQ(points[i].items()[d].first, name);  // keys keep the space's order
      EXPECT_NEAR(points[i].get(name), value.get<double>(), 1e-12 * std::abs(value.get<double>()) + 1e-15)
          << "point " << i << " " << name;
      ++d;
    }
  }
}

TEST(SamplerTest, MapUnitValueEdges) {
  SearchDimension log{"lr", SearchDimension::Kind::range, 1e-4, 1e-2, Scaling::log, {}};
  EXPECT_DOUBLE_EQ(map_unit_value(log, 0.0), 1e-4);
  EXPECT_NEAR(map_unit_value(log, 0.5), 1e-3, 1e-15);
  EXPECT_NEAR(map_unit_value(log, 1.0), 1e-2, 1e-15);
  SearchDimension linear{"b", SearchDimension::Kind::range, 0.2, 0.6, Scaling::linear, {}};
  EXPECT_DOUBLE_EQ(map_unit_value(linear, 0.25), 0.3);
  SearchDimension discrete{"ls", SearchDimension::Kind::discrete, 0, 0, Scaling::linear, {0.1, 0.2, 0.3}};
  EXPECT_EQ(map_unit_value(discrete, 0.0), 0.1);
  EXPECT_EQ(map_unit_value(discrete, 0.3333), 0.1);
  EXPECT_EQ(map_unit_value(discrete, 0.34), 0.2);
  EXPECT_EQ(map_unit_value(discrete, 0.9999999), 0.3);
  EXPECT_EQ(map_unit_value(discrete, 1.0), 0.3);  // clamped, never past the end
}

const char* kSpace = R"({"learning_rate": {"min": 1e-3, "max": 1.0, "scaling": "log"},
                         "one_minus_beta1": {"min": 0.0, "max": 0.5, "scaling": "linear"},
                         "label_smoothing": {"feasible_points": [0.0, 0.1]}})";

TEST(SamplerTest, RandomIsDeterministicPerPositionAndInRange) {
  const SearchSpace space = SearchSpace::from_json_text(kSpace, "test");
  auto a = make_sampler("random", {7, 3});
  const auto block = a->sample(space, 0, 200);
  const auto tail = a->sample(space, 150, 50);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(block[150 + i].to_json(), tail[i].to_json());
  EXPECT_NE(make_sampler("random", {8, 3})->sample(space, 0, 1)[0].to_json(), block[0].to_json());
  int small_lr = 0;
  for (const auto& p : block) {
    EXPECT_GE(p.get("learning_rate"), 1e-3);
    EXPECT_LE(p.get("learning_rate"), 1.0);
    EXPECT_GE(p.get("one_minus_beta1"), 0.0);
    EXPECT_LE(p.get("one_minus_beta1"), 0.5);
    EXPECT_TRUE(p.get("label_smoothing") == 0.0 || p.get("label_smoothing") == 0.1);
    small_lr += p.get("learning_rate") < std::sqrt(1e-3);  // log-uniform: half below the geometric middle
  }
  EXPECT_GT(small_lr, 70);
  EXPECT_LT(small_lr, 130);
}

TEST(SamplerTest, GridIsTheProductInKeyOrderWithTheLastKeyFastest) {
  const SearchSpace space = SearchSpace::from_json_text(kSpace, "test");
  auto grid = make_sampler("grid", {0, 3});
  ASSERT_EQ(grid->capacity(space), 3 * 3 * 2);
  const auto points = grid->sample(space, 0, 18);
  EXPECT_NEAR(points[0].get("learning_rate"), 1e-3, 1e-15);
  EXPECT_EQ(points[0].get("label_smoothing"), 0.0);
  EXPECT_EQ(points[1].get("label_smoothing"), 0.1);
  EXPECT_EQ(points[2].get("one_minus_beta1"), 0.25);
  EXPECT_NEAR(points[6].get("learning_rate"), std::sqrt(1e-3), 1e-12);
  EXPECT_EQ(points[17].get("learning_rate"), 1.0);
  EXPECT_EQ(points[17].get("one_minus_beta1"), 0.5);
  EXPECT_THROW(grid->sample(space, 10, 9), InputError);
  try {
    grid->sample(space, 18, 1);
    FAIL() << "no InputError past the end of the grid";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the grid has 18 points"), std::string::npos) << e.what();
  }
}

TEST(SamplerTest, ListGivesThePointsInOrderAndRejectsDictSpaces) {
  const SearchSpace list = SearchSpace::from_json_text(R"([{"learning_rate": 0.1}, {"learning_rate": 0.2, "weight_decay": 0.01}])", "list");
  auto sampler = make_sampler("list", {});
  EXPECT_EQ(sampler->capacity(list), 2);
  const auto points = sampler->sample(list, 0, 2);
  EXPECT_EQ(points[1].get("weight_decay"), 0.01);
  EXPECT_THROW(sampler->sample(list, 1, 2), InputError);
  EXPECT_THROW(sampler->capacity(SearchSpace::from_json_text(kSpace, "dict")), InputError);
  EXPECT_THROW(make_sampler("halton", {})->sample(list, 0, 1), InputError);
  try {
    make_sampler("sobol", {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sobol"), std::string::npos);
  }
}

TEST(SamplerTest, SeededPermutationIsAReproduciblePermutation) {
  const auto a = seeded_permutation(50, 1);
  EXPECT_EQ(a, seeded_permutation(50, 1));
  EXPECT_NE(a, seeded_permutation(50, 2));
  std::set<int64_t> values(a.begin(), a.end());
  EXPECT_EQ(values.size(), 50u);
  EXPECT_EQ(*values.begin(), 0);
  EXPECT_EQ(*values.rbegin(), 49);
  EXPECT_TRUE(seeded_permutation(0, 1).empty());
  EXPECT_EQ(seeded_permutation(1, 1), std::vector<int64_t>{0});
}

// The sampler seed must change the points, not only their order (a board's rerun measures other
// hyperparameters), while seed 0 keeps the reference's own points.
TEST(SamplerTest, HaltonSeedZeroIsTheReferenceAndAnotherSeedGivesOtherPoints) {
  const auto& mapped = golden()["mapped"];  // the reference's points (numpy implementation)
  const SearchSpace golden_space = SearchSpace::from_json_text(mapped["space"].dump(), "golden");
  const auto seed0 = make_sampler("halton", {0, 3})->sample(golden_space, 0, mapped["points"].size());
  for (size_t i = 0; i < seed0.size(); ++i) {
    for (const auto& [name, value] : mapped["points"][i].items()) {
      EXPECT_NEAR(seed0[i].get(name), value.get<double>(), 1e-12 * std::abs(value.get<double>()) + 1e-15) << i << name;
    }
  }
  const SearchSpace space = SearchSpace::from_json_text(kSpace, "test");
  const auto reference = make_sampler("halton", {0, 3})->sample(space, 0, 20);
  const auto seed1 = make_sampler("halton", {1, 3})->sample(space, 0, 20);
  const auto seed2 = make_sampler("halton", {2, 3})->sample(space, 0, 20);
  EXPECT_EQ(seed1[3].to_json(-1), make_sampler("halton", {1, 3})->sample(space, 3, 1)[0].to_json(-1)) << "not a sequence";
  // No point of seed 1 is a point of the reference or of seed 2 (continuous dimensions differ).
  for (const auto& p : seed1) {
    for (size_t i = 0; i < reference.size(); ++i) {
      EXPECT_NE(p.get("learning_rate"), reference[i].get("learning_rate"));
      EXPECT_NE(p.get("learning_rate"), seed2[i].get("learning_rate"));
    }
    EXPECT_GE(p.get("learning_rate"), 1e-3);
    EXPECT_LE(p.get("learning_rate"), 1.0);
  }
}

}  // namespace
}  // namespace pacer
