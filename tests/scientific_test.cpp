// Incremental tuning rounds: workload options declared by the workloads (and applied to their
// models), --scientific expanded into one sweep per value (a workload option or a fixed
// hyperparameter), and `pacer tune --scientific` end to end.
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "models/network.h"
#include "store/study_store.h"
#include "support/cli_runner.h"
#include "tune/scientific.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer {
namespace {

int64_t parameter_count(const std::string& workload, const WorkloadOptions& options) {
  int64_t n = 0;
  for (const auto& p : create_workload(workload, options)->init_model(1, at::kCPU)->parameters()) n += p.numel();
  return n;
}

TEST(WorkloadOptions, DeclaredParsedValidatedAndApplied) {
  const WorkloadSpec& mlp = workload_spec("fmnist_mlp");
  ASSERT_NE(mlp.option("activation"), nullptr);
  EXPECT_EQ(mlp.option("activation")->default_value, "relu");
  EXPECT_EQ(mlp.option("width")->default_value, "128");
  EXPECT_EQ(workload_spec("fmnist_mlp_tanh").option("activation")->default_value, "tanh");
  EXPECT_EQ(parse_workload_options({"width=64", "activation=tanh"}),
            (WorkloadOptions{{"activation", "tanh"}, {"width", "64"}}));
  EXPECT_THROW(parse_workload_options({"width"}), InputError);
  EXPECT_THROW(parse_workload_options({"width=1", "width=2"}), InputError);
  EXPECT_THROW(mlp.validate_options({{"colour", "red"}}), InputError);
  EXPECT_THROW(mlp.validate_options({{"activation", "swish"}}), InputError);
  EXPECT_THROW(mlp.validate_options({{"width", "0"}}), InputError);
  EXPECT_THROW(mlp.validate_options({{"width", "12a"}}), InputError);
  EXPECT_THROW(workload_spec("synthetic_regression").validate_options({{"width", "3"}}), InputError);
  // 784-128-128-10 vs 784-64-10: the options reach the model.
  EXPECT_EQ(parameter_count("fmnist_mlp", {}), 784 * 128 + 128 + 128 * 128 + 128 + 128 * 10 + 10);
  EXPECT_EQ(parameter_count("fmnist_mlp", {{"width", "64"}, {"depth", "1"}}), 784 * 64 + 64 + 64 * 10 + 10);
  EXPECT_GT(parameter_count("fmnist_vit", {{"width", "128"}}), parameter_count("fmnist_vit", {}));
  EXPECT_THROW(create_workload("fmnist_vit", {{"width", "66"}}), InputError);  // not a multiple of 4 heads
  EXPECT_NE(create_workload("fmnist_mlp", {{"activation", "tanh"}})->spec().description.find("activation=tanh"),
            std::string::npos);
}

SweepSpec base_sweep() {
  SweepSpec s;
  s.experiment = "nadamw";
  s.workload = "fmnist_mlp";
  s.algorithm = "nadamw";
  s.space = SearchSpace::from_json_text(
      R"({"learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"}, "weight_decay": {"min": 0.01, "max": 0.5, "scaling": "linear"}})",
      "space.json");
  s.space_origin = "space.json";
  return s;
}

TEST(Scientific, WorkloadOptionGivesOneSweepPerValue) {
  const ScientificAxis axis = parse_scientific("activation=relu,tanh");
  const auto sweeps = expand_scientific(base_sweep(), axis);
  ASSERT_EQ(sweeps.size(), 2u);
  EXPECT_EQ(sweeps[0].experiment, "nadamw@activation=relu");
  EXPECT_EQ(sweeps[1].experiment, "nadamw@activation=tanh");
  EXPECT_EQ(sweeps[1].trial.workload_options.at("activation"), "tanh");
  EXPECT_EQ(sweeps[1].space->to_json(), base_sweep().space->to_json());  // the nuisance space is the same
  for (const auto& s : sweeps) EXPECT_NO_THROW(validate_sweep(s));
}

TEST(Scientific, HyperparameterIsFixedInPlaceInEachSweepsSpace) {
  const auto sweeps = expand_scientific(base_sweep(), parse_scientific("weight_decay=0,0.1"));
  ASSERT_EQ(sweeps.size(), 2u);
  const auto& dims = sweeps[1].space->dimensions;
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[1].name, "weight_decay");  // same position: the other dimensions keep their coordinates
  EXPECT_EQ(dims[1].kind, SearchDimension::Kind::discrete);
  EXPECT_EQ(dims[1].feasible_points, std::vector<pacer::HyperparameterValue>{0.1});
  EXPECT_EQ(dims[0].name, "learning_rate");
  EXPECT_TRUE(sweeps[0].trial.workload_options.empty());
}

TEST(Scientific, RejectsWhatCannotBeCompared) {
  EXPECT_THROW(parse_scientific("activation"), InputError);
  EXPECT_THROW(parse_scientific("activation=relu"), InputError);  // nothing to compare
  EXPECT_THROW(parse_scientific("activation=relu,relu"), InputError);
  EXPECT_THROW(parse_scientific("activation=relu,"), InputError);
  EXPECT_THROW(expand_scientific(base_sweep(), parse_scientific("colour=red,blue")), InputError);
  EXPECT_THROW(expand_scientific(base_sweep(), parse_scientific("weight_decay=0,lots")), InputError);
  SweepSpec self = base_sweep();
  self.space.reset();
  EXPECT_THROW(expand_scientific(self, parse_scientific("weight_decay=0,0.1")), InputError);
  EXPECT_NO_THROW(expand_scientific(self, parse_scientific("width=64,128")));
  // An invalid option value is caught when the sweep is validated, before any store write.
  const auto bad = expand_scientific(base_sweep(), parse_scientific("activation=relu,swish"));
  EXPECT_THROW(validate_sweep(bad[1]), InputError);
}

class ScientificCliTest : public testing::CliFixture {};

TEST_F(ScientificCliTest, TuneRunsOneSweepPerScientificValue) {
  std::ofstream(dir_ + "/space.json") << R"({"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"},
                                             "weight_decay": {"feasible_points": [0.0]}})";
  const std::string store = dir_ + "/tune.db";
  const auto r = pacer("tune -w synthetic_regression -a sgd --space '" + dir_ + "/space.json' --scientific weight_decay=0,0.01 "
                       "--studies 1 --trials 2 --max-steps 50 --eval-every 25 --threads 1 -q --store '" + store + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  StudyStoreOptions options;
  options.create = false;
  StudyStore s(store, options);
  const auto studies = s.studies();
  ASSERT_EQ(studies.size(), 2u);
  EXPECT_EQ(studies[0].experiment, "sgd@weight_decay=0");
  EXPECT_EQ(studies[1].experiment, "sgd@weight_decay=0.01");
  for (const auto& study : studies) {
    const auto trials = s.trials(study.id);
    ASSERT_EQ(trials.size(), 2u);
    EXPECT_EQ(trials[0].status, StoredTrialStatus::complete);
  }
  // The nuisance points are the same in both sweeps (paired comparison); the scientific value differs.
  const auto a = s.trials(studies[0].id), b = s.trials(studies[1].id);
  EXPECT_NE(a[0].hparams_json->find("\"weight_decay\":0.0"), std::string::npos) << *a[0].hparams_json;
  EXPECT_NE(b[0].hparams_json->find("0.01"), std::string::npos) << *b[0].hparams_json;
  EXPECT_EQ(a[0].hparams_json->substr(0, a[0].hparams_json->find("weight_decay")),
            b[0].hparams_json->substr(0, b[0].hparams_json->find("weight_decay")));
  // A bad value is an input error before anything is written to a new store.
  const auto bad = pacer("tune -w synthetic_regression -a sgd --space '" + dir_ + "/space.json' --scientific width=1,2 "
                         "--store '" + dir_ + "/other.db' -q");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("neither an option"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/other.db"));
}

}  // namespace
}  // namespace pacer
