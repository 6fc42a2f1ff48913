// Samplers: the reference Halton sequence against golden values from an independent numpy
// implementation (tools/golden/generate_halton_golden.py), value mapping, random/grid/list, and
// the seeded permutation that orders a study's points.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "store/study_store.h"
#include "tune/board.h"
#include "tune/board_request.h"
#include "tune/halton.h"
#include "tune/paired_coordinates.h"
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
  EXPECT_DOUBLE_EQ(map_unit_value(log, 0.0).number(), 1e-4);
  EXPECT_NEAR(map_unit_value(log, 0.5).number(), 1e-3, 1e-15);
  EXPECT_NEAR(map_unit_value(log, 1.0).number(), 1e-2, 1e-15);
  SearchDimension linear{"b", SearchDimension::Kind::range, 0.2, 0.6, Scaling::linear, {}};
  EXPECT_DOUBLE_EQ(map_unit_value(linear, 0.25).number(), 0.3);
  SearchDimension discrete{"ls", SearchDimension::Kind::discrete, 0, 0, Scaling::linear, {0.1, 0.2, 0.3}};
  EXPECT_EQ(map_unit_value(discrete, 0.0).number(), 0.1);
  EXPECT_EQ(map_unit_value(discrete, 0.3333).number(), 0.1);
  EXPECT_EQ(map_unit_value(discrete, 0.34).number(), 0.2);
  EXPECT_EQ(map_unit_value(discrete, 0.9999999).number(), 0.3);
  EXPECT_EQ(map_unit_value(discrete, 1.0).number(), 0.3);  // clamped, never past the end
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

// Paired studies: the learning rate (and every shared name) is drawn on one coordinate of one
// cube whatever else a space holds, so spaces of different sizes get the same unit value there.
double unit_of(const SearchDimension& dim, double value) {
  return dim.scaling == Scaling::log ? std::log(value / dim.min) / std::log(dim.max / dim.min)
                                     : (value - dim.min) / (dim.max - dim.min);
}

TEST(SamplerTest, PairedHaltonSharesTheLearningRateDrawAcrossSpacesOfDifferentSizes) {
  const SearchSpace small = SearchSpace::from_json_text(
      R"({"learning_rate": {"min": 1e-4, "max": 1e-1, "scaling": "log"}})", "small");
  const SearchSpace large = SearchSpace::from_json_text(
      R"({"rho": {"min": 0.01, "max": 0.2, "scaling": "log"}, "weight_decay": {"min": 0.0, "max": 0.5, "scaling": "linear"},
          "learning_rate": {"min": 1e-3, "max": 1.0, "scaling": "log"}, "beta3": {"min": 0.9, "max": 0.9999, "scaling": "linear"}})", "large");
  EXPECT_EQ(paired_coordinates(small), (std::vector<int>{0}));
  EXPECT_EQ(paired_coordinates(large), (std::vector<int>{7, 3, 0, 8}));  // own names after the 7 shared ones
  for (uint64_t seed : {0u, 5u}) {
    const auto a = make_sampler("paired_halton", {seed, 3})->sample(small, 10, 8);
    const auto b = make_sampler("paired_halton", {seed, 3})->sample(large, 10, 8);
    for (size_t i = 0; i < a.size(); ++i) {
      const double ua = unit_of(small.dimensions[0], a[i].get("learning_rate"));
      const double ub = unit_of(large.dimensions[2], b[i].get("learning_rate"));
      EXPECT_NEAR(ua, ub, 1e-9) << "seed " << seed << " point " << i;
      EXPECT_GE(ua, 0.0);
      EXPECT_LT(ua, 1.0);
    }
    // Another coordinate is another draw: rho's unit values are not the learning rate's.
    EXPECT_GT(std::abs(unit_of(large.dimensions[0], b[0].get("rho")) - unit_of(large.dimensions[2], b[0].get("learning_rate"))), 1e-6);
  }
  // A seed rotates the points: other learning rates than seed 0's.
  const auto s0 = make_sampler("paired_halton", {0, 3})->sample(small, 0, 5);
  const auto s1 = make_sampler("paired_halton", {1, 3})->sample(small, 0, 5);
  for (size_t i = 0; i < s0.size(); ++i) EXPECT_NE(s0[i].get("learning_rate"), s1[i].get("learning_rate"));
  // The plain halton sampler keeps the reference's own sequence (the golden tests above): the
  // learning rate of a one-dimension space sits on base 991 there too, on another for 3 dims.
  EXPECT_EQ(halton_coordinate_points({0}, 0, 4), halton_unit_points(1, 0, 4));
  EXPECT_THROW(halton_coordinate_points({166}, 0, 1), InputError);
}

// On a paired board, study j, trial i of every algorithm has the same training seed and the same
// unit-cube point (the learning rate's coordinate), in the external run and in its rerun; the rerun
// has other seeds and points than the external run.
TEST(SamplerTest, APairedBoardGivesEveryAlgorithmsStudyJTrialITheSameSeedAndPoint) {
  namespace fs = std::filesystem;
  const std::string dir = ::testing::TempDir() + "/paired_board_" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir + "/spaces");
  std::ofstream(dir + "/spaces/sgd.json") << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"},
      "warmup_factor": {"min": 0.0, "max": 0.2, "scaling": "linear"}})";
  std::ofstream(dir + "/spaces/adamw.json") << R"({"learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"},
      "one_minus_beta1": {"min": 0.01, "max": 0.2, "scaling": "log"}, "beta2": {"feasible_points": [0.99, 0.999]},
      "warmup_factor": {"min": 0.0, "max": 0.1, "scaling": "linear"}})";
  BoardRequest request;
  request.algorithms = {"sgd", "adamw"};
  request.workloads = {"synthetic_regression"};
  request.rulesets = std::vector<std::string>{"external"};
  request.spaces_dir = dir + "/spaces";
  request.studies = 2;
  request.trials = 3;
  request.paired = true;
  const BoardSetup setup = make_board_setup(request);
  StudyStore store(dir + "/board.db");
  const BoardPlan plan = plan_board(store, setup.spec);
  // (run, study, trial) -> per algorithm: seed, unit learning rate, unit warmup factor.
  std::map<std::tuple<int, int, int64_t>, std::map<std::string, std::tuple<uint64_t, double, double>>> slots;
  for (const auto& study : plan.studies()) {
    const auto [algorithm, rerun] = board_algorithm_of(study.experiment);
    const SearchSpace space = SearchSpace::from_json_file(dir + "/spaces/" + algorithm + ".json");
    EXPECT_EQ(study.sampler, "paired_halton");
    for (const auto& t : store.trials(study.id)) {
      const Hyperparameters h = Hyperparameters::from_json_text(*t.hparams_json, "trial");
      const double lr = unit_of(space.dimensions[0], h.get("learning_rate"));
      const double warmup = unit_of(space.dimensions.back(), h.get("warmup_factor"));
      slots[{rerun, study.study_index, t.index}][algorithm] = {t.seed, lr, warmup};
    }
  }
  ASSERT_EQ(slots.size(), 2u * 2u * 3u);
  std::set<uint64_t> seeds;
  for (const auto& [slot, by_algorithm] : slots) {
    ASSERT_EQ(by_algorithm.size(), 2u);
    const auto& sgd = by_algorithm.at("sgd");
    const auto& adamw = by_algorithm.at("adamw");
    EXPECT_EQ(std::get<0>(sgd), std::get<0>(adamw)) << "seeds of run " << std::get<0>(slot) << " study " << std::get<1>(slot);
    EXPECT_NEAR(std::get<1>(sgd), std::get<1>(adamw), 1e-9) << "learning rate's draw";
    EXPECT_NEAR(std::get<2>(sgd), std::get<2>(adamw), 1e-9) << "warmup factor's draw";
    seeds.insert(std::get<0>(sgd));
  }
  EXPECT_EQ(seeds.size(), slots.size()) << "every slot its own seed, the rerun's other than the external run's";
  // A study planned on its own in another store (a newcomer's extension of a board's algorithm:
  // BoardSpec::first_study) draws the board's points and seeds for that study.
  BoardSpec extension = setup.spec;
  extension.algorithms = {"adamw"};
  extension.reruns = 0;
  extension.first_study["adamw"] = 2;
  StudyStore other(dir + "/extension.db");
  const BoardPlan extended = plan_board(other, extension);
  ASSERT_EQ(extended.studies().size(), 1u);
  EXPECT_EQ(extended.studies()[0].study_index, 2);
  std::vector<std::string> on_board, alone;
  for (const auto& study : plan.studies())
    if (study.experiment == "adamw" && study.study_index == 2)
      for (const auto& t : store.trials(study.id)) on_board.push_back(*t.hparams_json + std::to_string(t.seed));
  for (const auto& t : other.trials(extended.studies()[0].id)) alone.push_back(*t.hparams_json + std::to_string(t.seed));
  EXPECT_EQ(alone, on_board);
  EXPECT_EQ(alone.size(), 3u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pacer
