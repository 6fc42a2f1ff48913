// Tests of hyperparameter parsing and resolution (src/core/hyperparameters.h) and of the name
// registries' errors for unknown algorithms and workloads.
#include "core/hyperparameters.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/error.h"
#include "core/hyperparameter_builder.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;
using pacer::Hyperparameters;
using pacer::HyperparameterSpec;

// Runs `fn`, expects pacer::InputError, and returns its message ("" when none was thrown).
std::string input_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const pacer::InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected pacer::InputError, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected pacer::InputError, nothing was thrown";
  return "";
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "\"" << (haystack) << "\" lacks \"" << (needle) << "\""

std::vector<std::string> names_of(const Hyperparameters& hp) {
  std::vector<std::string> names;
  for (const auto& item : hp.items()) names.push_back(item.first);
  return names;
}

TEST(Hyperparameters, JsonOrderIsKept) {
  const auto hp = Hyperparameters::from_json_text(R"({"zeta": 3, "alpha": 1.5, "mid": -2e-3, "beta": 0})", "point");
  EXPECT_EQ(names_of(hp), (std::vector<std::string>{"zeta", "alpha", "mid", "beta"}));
  EXPECT_DOUBLE_EQ(hp.get("zeta"), 3.0);
  EXPECT_DOUBLE_EQ(hp.get("alpha"), 1.5);
  EXPECT_DOUBLE_EQ(hp.get("mid"), -2e-3);
  EXPECT_DOUBLE_EQ(hp.get("beta"), 0.0);
  // And the JSON written back keeps it too.
  const std::string json = hp.to_json(0);
  EXPECT_LT(json.find("zeta"), json.find("alpha"));
  EXPECT_LT(json.find("alpha"), json.find("mid"));
  EXPECT_LT(json.find("mid"), json.find("beta"));
  const auto round_trip = Hyperparameters::from_json_text(json, "round trip");
  EXPECT_EQ(round_trip.items(), hp.items());
}

TEST(Hyperparameters, SetKeepsPositionOfExistingKey) {
  Hyperparameters hp;
  EXPECT_TRUE(hp.empty());
  hp.set("a", 1);
  hp.set("b", 2);
  hp.set("a", 5);
  EXPECT_EQ(names_of(hp), (std::vector<std::string>{"a", "b"}));
  EXPECT_DOUBLE_EQ(hp.get("a"), 5.0);
  EXPECT_TRUE(hp.contains("b"));
  EXPECT_FALSE(hp.contains("c"));
  EXPECT_DOUBLE_EQ(hp.get_or("c", 7.5), 7.5);
  EXPECT_THROW(hp.get("c"), pacer::Error);
}

TEST(Hyperparameters, BooleansReadAsZeroOrOne) {
  const auto hp = Hyperparameters::from_json_text(R"({"use_nesterov": true, "decay": false})", "flags");
  EXPECT_DOUBLE_EQ(hp.get("use_nesterov"), 1.0);
  EXPECT_DOUBLE_EQ(hp.get("decay"), 0.0);
}

TEST(Hyperparameters, MalformedJsonNamesTheOrigin) {
  const std::string msg =
      input_error_of([] { Hyperparameters::from_json_text(R"({"learning_rate": 0.1,)", "sweeps/point_3.json"); });
  EXPECT_CONTAINS(msg, "sweeps/point_3.json");
  EXPECT_CONTAINS(msg, "malformed");
  EXPECT_CONTAINS(input_error_of([] { Hyperparameters::from_json_text("", "empty.json"); }), "empty.json");
}

TEST(Hyperparameters, NonObjectIsRejected) {
  EXPECT_CONTAINS(input_error_of([] { Hyperparameters::from_json_text("[1, 2]", "list.json"); }), "list.json");
  EXPECT_CONTAINS(input_error_of([] { Hyperparameters::from_json_text("0.1", "scalar.json"); }), "scalar.json");
}

TEST(Hyperparameters, AValueThatIsNotAScalarNamesTheKey) {
  // A string is a value (AlgoPerf's points hold them); null, a list and an object are not.
  for (const char* value : {"null", "[0.1]", R"({"x": 1})"}) {
    SCOPED_TRACE(value);
    const std::string text = std::string(R"({"beta2": 0.99, "learning_rate": )") + value + "}";
    const std::string msg = input_error_of([&] { Hyperparameters::from_json_text(text, "hp.json"); });
    EXPECT_CONTAINS(msg, "hp.json");
    EXPECT_CONTAINS(msg, "learning_rate");
  }
}

TEST(Hyperparameters, FromJsonFile) {
  std::string tmpl = (fs::path(::testing::TempDir()) / "hyperparameters_test_XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const std::string good = tmpl + "/good.json", bad = tmpl + "/bad.json";
  std::ofstream(good) << R"({"b": 2, "a": 1})";
  std::ofstream(bad) << R"({"b": 2, "a": })";
  const auto hp = Hyperparameters::from_json_file(good);
  EXPECT_EQ(names_of(hp), (std::vector<std::string>{"b", "a"}));
  EXPECT_CONTAINS(input_error_of([&] { Hyperparameters::from_json_file(bad); }), bad);
  const std::string missing = tmpl + "/missing.json";
  EXPECT_CONTAINS(input_error_of([&] { Hyperparameters::from_json_file(missing); }), missing);

  // --hparams FILE with --set over it: a set name keeps the file's position, a new one comes last;
  // no file: the assignments alone.
  const auto point = Hyperparameters::from_file_and_assignments(good, {"a=3", "c=true"});
  EXPECT_EQ(names_of(point), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_DOUBLE_EQ(point.get("a"), 3.0);
  EXPECT_DOUBLE_EQ(point.get("c"), 1.0);
  EXPECT_EQ(names_of(Hyperparameters::from_file_and_assignments("", {"x=1"})), std::vector<std::string>{"x"});
  EXPECT_CONTAINS(input_error_of([&] { Hyperparameters::from_file_and_assignments(good, {"a"}); }), "a");
  fs::remove_all(tmpl);
}

using pacer::HyperparameterValue;

TEST(Hyperparameters, ParseAssignment) {
  using Assignment = std::pair<std::string, HyperparameterValue>;
  EXPECT_EQ(Hyperparameters::parse_assignment("learning_rate=0.01"), Assignment("learning_rate", 0.01));
  EXPECT_EQ(Hyperparameters::parse_assignment("beta2=1e-3"), Assignment("beta2", 1e-3));
  EXPECT_EQ(Hyperparameters::parse_assignment("x=-2"), Assignment("x", -2.0));
  // As AlgoPerf's spaces hold them: true/false are booleans, anything else not a number is text.
  EXPECT_EQ(Hyperparameters::parse_assignment("nesterov=true"), Assignment("nesterov", HyperparameterValue::boolean(true)));
  EXPECT_EQ(Hyperparameters::parse_assignment("grafting_type=ADAM"),
            Assignment("grafting_type", HyperparameterValue::text("ADAM")));
  EXPECT_NE(Hyperparameters::parse_assignment("nesterov=true").second, HyperparameterValue(1.0));

  for (const char* bad : {"learning_rate", "=0.1", "learning_rate=", "", "="}) {
    SCOPED_TRACE(bad);
    input_error_of([&] { Hyperparameters::parse_assignment(bad); });
  }
  // Not a number: text, which an algorithm that takes a number refuses naming the key.
  const std::vector<HyperparameterSpec> numeric = {{"learning_rate", std::nullopt, 0.0, 10.0, "lr"}};
  for (const char* typo : {"learning_rate=abc", "learning_rate=0.1x", "learning_rate=0.1 ", "learning_rate=1=2"}) {
    SCOPED_TRACE(typo);
    Hyperparameters given;
    auto [name, value] = Hyperparameters::parse_assignment(typo);
    EXPECT_TRUE(value.is_text());
    given.set(name, value);
    EXPECT_CONTAINS(input_error_of([&] { pacer::resolve_hyperparameters(numeric, given, "algo"); }),
                    "hyperparameter 'learning_rate' = \"");
  }
}

TEST(Hyperparameters, StringsAndBooleansAreKeptAsGivenAndNumbersStayNumbers) {
  const auto hp = Hyperparameters::from_json_text(
      R"({"learning_rate": 0.1, "grafting_type": "ADAM", "nesterov": true, "steps": 3})", "point.json");
  EXPECT_EQ(hp.value("grafting_type"), HyperparameterValue::text("ADAM"));
  EXPECT_EQ(hp.value("nesterov"), HyperparameterValue::boolean(true));
  EXPECT_DOUBLE_EQ(hp.get("learning_rate"), 0.1);
  EXPECT_DOUBLE_EQ(hp.get("nesterov"), 1.0);  // a boolean read as a number: 0/1
  EXPECT_CONTAINS(input_error_of([&] { hp.get("grafting_type"); }), "grafting_type");
  // Written back as read (a number as a double, as before strings were allowed).
  EXPECT_EQ(hp.to_json(-1), R"({"learning_rate":0.1,"grafting_type":"ADAM","nesterov":true,"steps":3.0})");
  EXPECT_EQ(Hyperparameters::from_json_text(hp.to_json(-1), "again").to_json(-1), hp.to_json(-1));
  for (const char* bad : {R"({"x": null})", R"({"x": [1]})", R"({"x": {"a": 1}})"}) {
    SCOPED_TRACE(bad);
    EXPECT_CONTAINS(input_error_of([&] { Hyperparameters::from_json_text(bad, "p.json"); }), "'x'");
  }
  // Resolving: a spec that takes numbers gets a number (a boolean as 0/1) and refuses text; a
  // spec that takes any scalar keeps each value as it is.
  std::vector<HyperparameterSpec> numeric = {{"nesterov", std::nullopt, 0.0, 1.0, ""},
                                             {"grafting_type", std::nullopt, 0.0, 1.0, ""}};
  Hyperparameters flags;
  flags.set("nesterov", HyperparameterValue::boolean(true));
  flags.set("grafting_type", 0.0);
  EXPECT_EQ(pacer::resolve_hyperparameters(numeric, flags, "algo").value("nesterov"), HyperparameterValue(1.0));
  Hyperparameters text;
  text.set("nesterov", 1.0);
  text.set("grafting_type", HyperparameterValue::text("ADAM"));
  EXPECT_CONTAINS(input_error_of([&] { pacer::resolve_hyperparameters(numeric, text, "algo"); }),
                  "hyperparameter 'grafting_type' = \"ADAM\" is text; algorithm algo takes a number for it");
  for (auto& spec : numeric) spec.any_scalar = true;
  const auto kept = pacer::resolve_hyperparameters(numeric, text, "algo");
  EXPECT_EQ(kept.value("grafting_type"), HyperparameterValue::text("ADAM"));
  EXPECT_EQ(pacer::resolve_hyperparameters(numeric, flags, "algo").value("nesterov"), HyperparameterValue::boolean(true));
}

std::vector<HyperparameterSpec> specs() {
  return {
      {"learning_rate", std::nullopt, 0.0, 10.0, "required"},
      {"beta2", 0.999, 0.0, 1.0, "decay"},
      {"warmup", 0.05, 0.0, 1.0, "warmup"},
      {"weight_decay", 0.0, 0.0, std::numeric_limits<double>::infinity(), "wd"},
  };
}

TEST(ResolveHyperparameters, DefaultsAreFilledInSpecOrder) {
  Hyperparameters given;
  given.set("warmup", 0.1);  // given out of spec order
  given.set("learning_rate", 0.5);
  const auto resolved = pacer::resolve_hyperparameters(specs(), given, "algo");
  EXPECT_EQ(names_of(resolved), (std::vector<std::string>{"learning_rate", "beta2", "warmup", "weight_decay"}));
  EXPECT_DOUBLE_EQ(resolved.get("learning_rate"), 0.5);
  EXPECT_DOUBLE_EQ(resolved.get("beta2"), 0.999);
  EXPECT_DOUBLE_EQ(resolved.get("warmup"), 0.1);
  EXPECT_DOUBLE_EQ(resolved.get("weight_decay"), 0.0);
}

TEST(ResolveHyperparameters, BoundsAreInclusive) {
  Hyperparameters given;
  given.set("learning_rate", 10.0);
  given.set("beta2", 0.0);
  given.set("warmup", 1.0);
  given.set("weight_decay", 1e300);
  EXPECT_NO_THROW(pacer::resolve_hyperparameters(specs(), given, "algo"));
}

TEST(ResolveHyperparameters, UnknownNameListsTheAcceptedOnes) {
  Hyperparameters given;
  given.set("learning_rate", 0.1);
  given.set("lerning_rate", 0.1);
  const std::string msg = input_error_of([&] { pacer::resolve_hyperparameters(specs(), given, "my_algo"); });
  EXPECT_CONTAINS(msg, "lerning_rate");
  EXPECT_CONTAINS(msg, "my_algo");
  for (const auto& spec : specs()) EXPECT_CONTAINS(msg, spec.name);
}

TEST(ResolveHyperparameters, OutOfRangeNamesTheKey) {
  for (double bad : {2.0, -0.5}) {
    Hyperparameters given;
    given.set("learning_rate", 0.1);
    given.set("beta2", bad);
    const std::string msg = input_error_of([&] { pacer::resolve_hyperparameters(specs(), given, "algo"); });
    EXPECT_CONTAINS(msg, "beta2");
    EXPECT_CONTAINS(msg, "range");
  }
}

TEST(ResolveHyperparameters, MissingWithoutDefault) {
  Hyperparameters given;
  given.set("beta2", 0.9);
  const std::string msg = input_error_of([&] { pacer::resolve_hyperparameters(specs(), given, "algo"); });
  EXPECT_CONTAINS(msg, "learning_rate");
  EXPECT_CONTAINS(msg, "default");
}

TEST(ResolveHyperparameters, NonFiniteValuesAreRejected) {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    Hyperparameters given;
    given.set("learning_rate", 0.1);
    given.set("weight_decay", bad);  // its range is unbounded above: only the finiteness check can catch this
    EXPECT_CONTAINS(input_error_of([&] { pacer::resolve_hyperparameters(specs(), given, "algo"); }), "weight_decay");
  }
  Hyperparameters nan_lr;
  nan_lr.set("learning_rate", std::nan(""));
  EXPECT_CONTAINS(input_error_of([&] { pacer::resolve_hyperparameters(specs(), nan_lr, "algo"); }), "learning_rate");
  // A NaN given on the command line reaches the same check.
  Hyperparameters from_cli;
  auto [name, value] = Hyperparameters::parse_assignment("learning_rate=nan");
  from_cli.set(name, value);
  EXPECT_CONTAINS(input_error_of([&] { pacer::resolve_hyperparameters(specs(), from_cli, "algo"); }), "learning_rate");
}

TEST(Registries, UnknownAlgorithmListsValidNames) {
  const std::string msg = input_error_of([] { pacer::create_algorithm("nope"); });
  EXPECT_CONTAINS(msg, "nope");
  const auto names = pacer::algorithm_names();
  ASSERT_FALSE(names.empty());
  for (const auto& name : names) EXPECT_CONTAINS(msg, name);
  EXPECT_CONTAINS(msg, "nadamw");
  // Every listed name can be created, under that name.
  for (const auto& name : names) {
    auto algorithm = pacer::create_algorithm(name);
    ASSERT_NE(algorithm, nullptr) << name;
    EXPECT_EQ(algorithm->name(), name);
  }
}

// The catalog (catalog/algorithm_infos.cpp) describes each built-in without torch; the algorithm
// the training layer creates under that name presents exactly that description and those
// declarations (order, defaults, ranges, exclusions), so listing, sweeps and training agree.
TEST(Registries, EveryBuiltinPresentsItsCatalogEntry) {
  ASSERT_EQ(pacer::builtin_algorithms().size(), 15u);
  for (const auto& builtin : pacer::builtin_algorithms()) {
    const pacer::AlgorithmInfo info = pacer::algorithm_info(builtin.name);
    const auto algorithm = pacer::create_algorithm(builtin.name);
    EXPECT_EQ(algorithm->description(), info.description) << builtin.name;
    const auto specs = algorithm->hyperparameter_specs();
    ASSERT_EQ(specs.size(), info.hyperparameters.size()) << builtin.name;
    for (size_t i = 0; i < specs.size(); ++i) {
      const auto& a = specs[i];
      const auto& b = info.hyperparameters[i];
      EXPECT_EQ(a.name, b.name) << builtin.name;
      EXPECT_EQ(a.default_value, b.default_value) << builtin.name << " " << a.name;
      EXPECT_EQ(a.min, b.min) << builtin.name << " " << a.name;
      EXPECT_EQ(a.max, b.max) << builtin.name << " " << a.name;
      EXPECT_EQ(a.min_excluded, b.min_excluded) << builtin.name << " " << a.name;
      EXPECT_EQ(a.max_excluded, b.max_excluded) << builtin.name << " " << a.name;
      EXPECT_EQ(a.description, b.description) << builtin.name << " " << a.name;
    }
  }
  // Two entries keep their own defaults of the common hyperparameters (their submissions').
  const auto default_of = [](const std::string& algorithm, const std::string& name) {
    for (const auto& hp : pacer::algorithm_info(algorithm).hyperparameters)
      if (hp.name == name) return hp.default_value.value_or(-1.0).number();
    return -1.0;
  };
  EXPECT_EQ(default_of("schedule_free_adamw", "label_smoothing"), 0.2);
  EXPECT_EQ(default_of("shampoo", "dropout_rate"), 0.1);
  EXPECT_EQ(default_of("nadamw", "label_smoothing"), 0.0);
}

TEST(Registries, UnknownWorkloadListsValidNames) {
  const std::string msg = input_error_of([] { pacer::create_workload("nope"); });
  EXPECT_CONTAINS(msg, "nope");
  const auto specs = pacer::workload_specs();
  ASSERT_FALSE(specs.empty());
  for (const auto& spec : specs) EXPECT_CONTAINS(msg, spec.name);
  for (const char* name : {"fmnist_mlp", "fmnist_cnn", "synthetic_regression"}) EXPECT_CONTAINS(msg, name);
  for (const auto& spec : specs) {
    auto workload = pacer::create_workload(spec.name);
    ASSERT_NE(workload, nullptr) << spec.name;
    EXPECT_EQ(workload->spec().name, spec.name);
  }
}

// A plugin's declarations are checked when it is loaded: every built-in passes, and a default
// outside its own range or a name declared twice is refused naming it.
// Declarations by name give the fields a positional list would, and exclude an end only when asked.
TEST(HyperparameterSpecs, TheBuilderNamesEveryField) {
  const std::vector<HyperparameterSpec> specs = {
      pacer::hyperparameter("learning_rate").defaults_to(1e-3).in(1e-6, 1.0).describe("peak learning rate"),
      pacer::hyperparameter("beta2").defaults_to(0.999).in(0.0, 1.0).excluding_max(),
      pacer::hyperparameter("epsilon").at_least(0.0).excluding_min(),
  };
  const HyperparameterSpec positional{"learning_rate", 1e-3, 1e-6, 1.0, "peak learning rate"};
  EXPECT_EQ(specs[0].name, positional.name);
  EXPECT_EQ(specs[0].default_value, positional.default_value);
  EXPECT_EQ(specs[0].min, positional.min);
  EXPECT_EQ(specs[0].max, positional.max);
  EXPECT_EQ(specs[0].description, positional.description);
  EXPECT_FALSE(specs[0].min_excluded || specs[0].max_excluded);
  EXPECT_EQ(specs[1].range_text(), "[0, 1)");
  EXPECT_FALSE(specs[1].admits(1.0));
  EXPECT_TRUE(specs[1].admits(0.0));
  EXPECT_FALSE(specs[2].default_value.has_value());  // no default: the user must give it
  EXPECT_FALSE(specs[2].admits(0.0));
  EXPECT_TRUE(specs[2].admits(1e300));
  EXPECT_NO_THROW(pacer::validate_hyperparameter_specs(specs, "builder"));
  Hyperparameters given;
  given.set("epsilon", 1e-8);
  const Hyperparameters resolved = pacer::resolve_hyperparameters(specs, given, "builder");
  EXPECT_EQ(resolved.get("beta2"), 0.999);
  EXPECT_EQ(resolved.get("epsilon"), 1e-8);
}

TEST(HyperparameterSpecs, DeclarationsMustHoldTogether) {
  for (const auto& info : pacer::algorithm_infos()) {
    EXPECT_NO_THROW(pacer::validate_hyperparameter_specs(info.hyperparameters, info.name));
  }
  pacer::HyperparameterSpec lr{"learning_rate", 5.0, 0.0, 1.0, "step size"};
  try {
    pacer::validate_hyperparameter_specs({lr}, "plugin x");
    ADD_FAILURE() << "a default outside its range was accepted";
  } catch (const pacer::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'learning_rate' has the default 5, outside its own range [0, 1]"),
              std::string::npos)
        << e.what();
  }
  lr.default_value = 0.1;
  EXPECT_THROW(pacer::validate_hyperparameter_specs({lr, lr}, "plugin x"), pacer::InputError);  // declared twice
  pacer::HyperparameterSpec open_end{"beta2", 1.0, 0.0, 1.0, "decay"};
  open_end.max_excluded = true;  // the default sits on the excluded end
  EXPECT_THROW(pacer::validate_hyperparameter_specs({open_end}, "plugin x"), pacer::InputError);
  pacer::HyperparameterSpec empty{"x", std::nullopt, 2.0, 1.0, "empty"};
  EXPECT_THROW(pacer::validate_hyperparameter_specs({empty}, "plugin x"), pacer::InputError);
}

}  // namespace
