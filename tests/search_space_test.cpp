// Search spaces in the reference format: parsing, key order, round trip, every malformed case
// (InputError naming the key), validation against an algorithm's declarations, and the shipped
// spaces in spaces/ (each must fit the algorithm of the same name).
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <set>

#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/error.h"
#include "tune/sampler.h"
#include "tune/search_space.h"

namespace pacer {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

std::string parse_error(const std::string& json) {
  return error_of([&] { SearchSpace::from_json_text(json, "s.json"); });
}

TEST(SearchSpaceTest, ReadsRangesAndFeasiblePointsInJsonOrder) {
  const auto space = SearchSpace::from_json_text(
      R"({"weight_decay": {"min": 0.005, "max": 1, "scaling": "log"},
          "learning_rate": {"min": 0.1, "max": 0.2, "scaling": "linear"},
          "label_smoothing": {"feasible_points": [0.1, 0.2]},
          "nesterov": {"feasible_points": [true, false]}})",
      "s.json");
  ASSERT_EQ(space.dimensions.size(), 4u);
  EXPECT_EQ(space.names(), (std::vector<std::string>{"weight_decay", "learning_rate", "label_smoothing", "nesterov"}));
  EXPECT_EQ(space.dimensions[0].scaling, Scaling::log);
  EXPECT_EQ(space.dimensions[1].scaling, Scaling::linear);
  EXPECT_EQ(space.dimensions[2].kind, SearchDimension::Kind::discrete);
  EXPECT_EQ(space.dimensions[3].feasible_points,
            (std::vector<HyperparameterValue>{HyperparameterValue::boolean(true), HyperparameterValue::boolean(false)}));
  const auto again = SearchSpace::from_json_text(space.to_json(), "again");
  EXPECT_EQ(again.to_json(), space.to_json());
  EXPECT_EQ(again.names(), space.names());
}

TEST(SearchSpaceTest, ReadsAListOfPoints) {
  const auto space = SearchSpace::from_json_text(R"([{"learning_rate": 0.1}, {"learning_rate": 0.2, "beta2": 0.99}])", "l");
  EXPECT_TRUE(space.is_list());
  EXPECT_EQ(space.names(), (std::vector<std::string>{"learning_rate", "beta2"}));
  EXPECT_EQ(SearchSpace::from_json_text(space.to_json(), "again").to_json(), space.to_json());
}

// AlgoPerf's published NAdamW points name label_smoothing twice in the second point; the reader
// keeps the later value, as Python's json (which the reference uses) does, and says so.
TEST(SearchSpaceTest, AKeyGivenTwiceKeepsTheLaterValueWithAWarning) {
  const auto list = SearchSpace::from_json_text(
      R"([{"learning_rate": 0.001}, {"learning_rate": 0.002, "label_smoothing": 0.1, "label_smoothing": 0.2}])", "p.json");
  ASSERT_EQ(list.fixed_points.size(), 2u);
  EXPECT_DOUBLE_EQ(list.fixed_points[1].get("label_smoothing"), 0.2);
  ASSERT_EQ(list.warnings.size(), 1u);
  EXPECT_EQ(list.warnings[0],
            "p.json: point 1: 'label_smoothing' is given twice; the later value is kept (as Python's json does)");
  const auto dict = SearchSpace::from_json_text(
      R"({"learning_rate": {"min": 1e-4, "max": 1e-2, "min": 1e-3, "scaling": "log"}})", "d.json");
  EXPECT_DOUBLE_EQ(dict.dimensions[0].min, 1e-3);
  ASSERT_EQ(dict.warnings.size(), 1u);
  EXPECT_NE(dict.warnings[0].find("d.json: 'learning_rate': 'min' is given twice"), std::string::npos) << dict.warnings[0];
  EXPECT_TRUE(SearchSpace::from_json_text(R"({"a": {"feasible_points": [1]}, "b": {"feasible_points": [1]}})", "x")
                  .warnings.empty());
}

TEST(SearchSpaceTest, MalformedSpacesNameTheFileAndTheKey) {
  struct Case {
    const char* json;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {R"({"lr": {"min": 0.5, "max": 0.1, "scaling": "log"}})", "'lr': min 0.5 is greater than max 0.1"},
      {R"({"lr": {"min": 0, "max": 0.1, "scaling": "log"}})", "'lr': log scaling needs min > 0"},
      {R"({"lr": {"min": -1, "max": 0.1, "scaling": "log"}})", "'lr': log scaling needs min > 0 (got -1)"},
      {R"({"lr": {"feasible_points": []}})", "'lr': feasible_points is empty"},
      {R"({"lr": {"feasible_points": 3}})", "'lr': feasible_points must be a list"},
      {R"({"lr": {"feasible_points": [[1]]}})", "'lr': feasible_points[0] must be a number, a boolean or a string"},
      {R"({"lr": {"min": 0.1, "max": 0.2, "scaling": "cubic"}})", "'lr': unknown scaling cubic"},
      {R"({"lr": {"min": 0.1, "max": 0.2}})", "'lr': a range needs \"scaling\""},
      {R"({"lr": {"min": 0.1, "scaling": "log"}})", "'lr': a range needs both"},
      {R"({"lr": {"min": "a", "max": 0.2, "scaling": "log"}})", "'lr': min must be a number"},
      {R"({"lr": {"min": 0.1, "max": 0.2, "scaling": "log", "step": 2}})", "'lr': unexpected field 'step'"},
      {R"({"lr": 0.1})", "'lr': expected"},
      {R"({})", "the search space is empty"},
      {R"([])", "the list of points is empty"},
      {R"([{"lr": null}])", "point 0: 'lr' must be a number, a boolean or a string"},
      {R"("lr")", "a search space is an object"},
      {R"({"lr": {"min": 0.1,)", "malformed JSON"},
      {R"({"lr": {"min": 0.1,)", "line 1, column"},  // the parser's position
      {R"({"lr": {"min": 1e-3, "max": 1e999, "scaling": "log"}})", "number overflow parsing '1e999'"},
      {R"({"lr": {"feasible_points": [0.1, null]}})", "'lr': feasible_points[1] must be a number"},
  };
  for (const auto& c : cases) {
    const std::string message = parse_error(c.json);
    EXPECT_NE(message.find("s.json"), std::string::npos) << c.json << " -> " << message;
    EXPECT_NE(message.find(c.fragment), std::string::npos) << c.json << " -> " << message;
  }
}

TEST(SearchSpaceTest, ValidationAgainstTheAlgorithmNamesTheKey) {
  const auto nadamw = create_algorithm("nadamw");
  const auto specs = nadamw->hyperparameter_specs();
  auto validate = [&](const std::string& json, const std::vector<HyperparameterSpec>& s) {
    return error_of([&] { validate_search_space(SearchSpace::from_json_text(json, "s.json"), s, "nadamw", "s.json"); });
  };
  EXPECT_EQ(validate(R"({"learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"}})", specs), "(no InputError)");
  EXPECT_NE(validate(R"({"learning_rat": {"min": 1e-4, "max": 1e-2, "scaling": "log"}})", specs)
                .find("'learning_rat' is not a hyperparameter of nadamw"),
            std::string::npos);
  EXPECT_NE(validate(R"({"beta2": {"feasible_points": [0.9, 1.5]}})", specs).find("'beta2': feasible point 1.5 is outside"),
            std::string::npos);
  EXPECT_NE(validate(R"({"learning_rate": {"min": 1e-4, "max": 20, "scaling": "log"}})", specs)
                .find("'learning_rate': max 20 is outside [0, 10]"),
            std::string::npos);
  EXPECT_NE(validate(R"([{"learning_rate": -1}])", specs).find("'learning_rate': point 0 value -1"), std::string::npos);
  // A declared hyperparameter without a default must get values from the space.
  std::vector<HyperparameterSpec> no_default = specs;
  no_default.push_back({"rho", std::nullopt, 0.0, 1.0, "SAM radius"});
  EXPECT_NE(validate(R"({"learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"}})", no_default)
                .find("'rho' has no default in nadamw"),
            std::string::npos);
  EXPECT_EQ(validate(R"({"rho": {"feasible_points": [0.05]}})", no_default), "(no InputError)");
  EXPECT_NE(validate(R"([{"rho": 0.05}, {"learning_rate": 0.01}])", no_default).find("point 1: 'rho'"),
            std::string::npos);
  // Text where the algorithm takes a number (a boolean reads as 0/1 and is range-checked as such).
  EXPECT_NE(validate(R"({"learning_rate": {"feasible_points": ["fast"]}})", specs)
                .find("'learning_rate': feasible point \"fast\" is text; nadamw takes a number for it"),
            std::string::npos);
  EXPECT_NE(validate(R"([{"learning_rate": "fast"}])", specs).find("point 0 value \"fast\" is text"), std::string::npos);
  EXPECT_EQ(validate(R"({"label_smoothing": {"feasible_points": [false]}})", specs), "(no InputError)");
}

// AlgoPerf's spaces hold strings and booleans among their feasible points (Distributed Shampoo's
// "grafting_type": ["ADAM"]): a declaration that takes any scalar accepts them, the samplers draw
// them as they are, and the space's JSON keeps them.
TEST(SearchSpaceTest, StringAndBooleanFeasiblePointsAreSampledAsTheyAre) {
  const auto space = SearchSpace::from_json_text(
      R"({"learning_rate": {"min": 0.01, "max": 0.1, "scaling": "log"},
          "grafting_type": {"feasible_points": ["SGD", "ADAM"]}, "nesterov": {"feasible_points": [true]}})",
      "s.json");
  std::vector<HyperparameterSpec> any = {{"learning_rate", std::nullopt, 0.0, 1.0, ""},
                                         {"grafting_type", std::nullopt, 0.0, 1.0, ""},
                                         {"nesterov", std::nullopt, 0.0, 1.0, ""}};
  for (auto& s : any) s.any_scalar = true;
  EXPECT_EQ(error_of([&] { validate_search_space(space, any, "submission", "s.json"); }), "(no InputError)");
  EXPECT_EQ(SearchSpace::from_json_text(space.to_json(), "again").to_json(), space.to_json());
  EXPECT_NE(space.to_json().find(R"("feasible_points":["SGD","ADAM"])"), std::string::npos) << space.to_json();
  for (const char* name : {"halton", "random", "grid"}) {
    SCOPED_TRACE(name);
    const auto points = make_sampler(name, {})->sample(space, 0, std::string(name) == "grid" ? 6 : 8);
    std::set<std::string> drawn;
    for (const auto& p : points) {
      drawn.insert(p.value("grafting_type").text_value());
      EXPECT_EQ(p.value("nesterov"), HyperparameterValue::boolean(true));
      EXPECT_FALSE(p.value("learning_rate").is_text());
    }
    EXPECT_EQ(drawn, (std::set<std::string>{"SGD", "ADAM"}));
  }
}

TEST(SearchSpaceTest, EveryShippedSpaceFitsItsAlgorithm) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(PACER_SOURCE_DIR) + "/spaces")) {
    if (entry.path().extension() != ".json") continue;
    // nadamw.json, schedule_free_adamw.json, or <algorithm>_<purpose>.json such as sgd_scaling.json
    const std::string stem = entry.path().stem().string();
    const auto names = algorithm_names();
    const std::string algorithm =
        std::find(names.begin(), names.end(), stem) != names.end() ? stem : stem.substr(0, stem.rfind('_'));
    const auto space = SearchSpace::from_json_file(entry.path().string());
    EXPECT_NO_THROW(validate_search_space(space, create_algorithm(algorithm)->hyperparameter_specs(), algorithm,
                                          entry.path().string()))
        << entry.path();
    ++checked;
  }
  for (const auto& name : algorithm_names()) {
    EXPECT_TRUE(std::filesystem::exists(std::string(PACER_SOURCE_DIR) + "/spaces/" + name + ".json"))
        << "no shipped search space for " << name;
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace pacer
