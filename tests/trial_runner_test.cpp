// The AlgoPerf timing protocol of the trial runner, checked exactly with a fake clock: a scripted
// algorithm advances the clock per step, a scripted workload per eval and returns chosen metrics.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "algorithms/training_algorithm.h"
#include "core/clock.h"
#include "core/error.h"
#include "runtime/torch_runtime.h"
#include "models/mlp.h"
#include "train/trial_runner.h"
#include "train/trial_summary.h"

namespace pacer {
namespace {

class ScriptedWorkload : public Workload {
 public:
  ScriptedWorkload(FakeClock& clock, WorkloadSpec spec) : Workload(std::move(spec)), clock_(clock) {}
  std::vector<double> validation_values;  // one per eval; the last repeats
  std::vector<double> test_values;
  double eval_cost = 5.0;

  void load(const WorkloadContext&) override {
    data_ = {at::randn({64, 2}), at::randn({64, 1})};
  }
  std::shared_ptr<Network> init_model(uint64_t seed, const c10::Device&) const override {
    at::manual_seed(seed);
    return std::make_shared<Mlp>(MlpOptions{2, {}, 1, Activation::relu, false});
  }
  LossOutput loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const at::Tensor&, double) const override {
    LossOutput out;
    out.per_example = (outputs - targets).pow(2).sum(1);
    out.summed = out.per_example.sum();
    out.n_valid = at::scalar_tensor(static_cast<double>(targets.size(0)));
    return out;
  }
  const TensorDataset& dataset(EvalSplit) const override { return data_; }
  Metrics evaluate(Network&, EvalSplit split) const override {
    if (split == EvalSplit::train) return {{"accuracy", 0.5}};
    const auto& values = split == EvalSplit::validation ? validation_values : test_values;
    size_t& index = split == EvalSplit::validation ? val_index_ : test_index_;
    const double v = values.empty() ? 0.0 : values[std::min(index, values.size() - 1)];
    ++index;
    if (split == EvalSplit::test) clock_.advance(eval_cost);  // evals cost wall time, never submission time
    return {{"accuracy", v}, {"num_examples", 100}};
  }
  size_t evals_seen() const { return val_index_; }

 private:
  FakeClock& clock_;
  TensorDataset data_;
  mutable size_t val_index_ = 0, test_index_ = 0;
};

class ScriptedAlgorithm : public TrainingAlgorithm {
 public:
  explicit ScriptedAlgorithm(FakeClock& clock) : clock_(clock) {}
  double step_cost = 0.3;
  double prepare_cost = 0.0;
  int64_t diverge_at_step = -1;   // 0-based step index whose loss is NaN
  int64_t complete_at_step = -1;  // 0-based step index that signals training complete
  std::vector<int64_t> seen_steps;
  std::vector<uint64_t> seen_seeds;

  std::string name() const override { return "scripted"; }
  std::vector<HyperparameterSpec> hyperparameter_specs() const override { return {{"learning_rate", 0.1, 0.0, 1.0, ""}}; }
  void init_optimizer_state(const Workload&, Network&, const Hyperparameters*, uint64_t) override {}
  UpdateResult update(const Workload&, Network&, const Batch& batch, const StepContext& context) override {
    EXPECT_EQ(batch.size(), 8);
    seen_steps.push_back(context.step);
    seen_seeds.push_back(context.step_seed);
    clock_.advance(step_cost);
    UpdateResult r;
    r.loss = at::scalar_tensor(context.step == diverge_at_step ? NAN : 1.0);
    r.training_complete = context.step == complete_at_step;
    return r;
  }
  void prepare_for_eval(const Workload&, Network&, const StepContext&) override { clock_.advance(prepare_cost); }
  NamedTensors state() const override { return {}; }
  void load_state(const NamedTensors&) override {}

 private:
  FakeClock& clock_;
};

WorkloadSpec test_spec() {
  WorkloadSpec s;
  s.name = "scripted";
  s.target_metric = "accuracy";
  s.higher_is_better = true;
  s.validation_target = 0.9;
  s.test_target = 0.8;
  s.time_budget = 100.0;
  s.step_hint = 100;
  s.eval_period_sec = 1.0;
  s.reference_batch_size = 8;
  return s;
}

struct Fixture {
  FakeClock clock;
  ScriptedWorkload workload;
  ScriptedAlgorithm algorithm{clock};
  TrialOptions options;
  explicit Fixture(WorkloadSpec spec = test_spec()) : workload(clock, std::move(spec)) {
    options.clock = &clock;
    options.prefetch = 0;
    options.spec.device = "cpu";
    options.seed = 3;
  }
  TrialResult run() { return run_trial(workload, algorithm, Hyperparameters{}, options); }
};

std::vector<int64_t> eval_steps(const TrialResult& r) {
  std::vector<int64_t> steps;
  for (const auto& e : r.evals) steps.push_back(e.step);
  return steps;
}

// The clock read by the trial, recording how many device synchronizations preceded each read.
struct SynchronizationRecorder : Clock {
  explicit SynchronizationRecorder(Clock& inner) : inner(inner) {}
  double now() override {
    seen.push_back(synchronizations());
    return inner.now();
  }
  Clock& inner;
  std::vector<int64_t> seen;
};

TEST(TrialRunner, EveryClockReadFollowsADeviceSynchronization) {
  // On a GPU a time read before the queued kernels finish misses them: every read synchronizes
  // (steps, the end of each step's off-clock work, evals, the trial's end).
  Fixture f;
  SynchronizationRecorder recorder(f.clock);
  f.options.clock = &recorder;
  const int64_t before = synchronizations();
  const TrialResult r = f.run();
  ASSERT_GT(r.steps, 5);
  ASSERT_GT(recorder.seen.size(), static_cast<size_t>(r.steps));
  EXPECT_GT(recorder.seen.front(), before);
  for (size_t i = 1; i < recorder.seen.size(); ++i) {
    EXPECT_GT(recorder.seen[i], recorder.seen[i - 1]) << "clock read " << i << " without a synchronization before it";
  }
}

TEST(TrialRunner, FirstEvalAfterStepOneThenEveryEvalPeriod) {
  Fixture f;
  f.options.spec.max_steps = 13;
  TrialResult r = f.run();
  // 0.3 s per step, period 1 s counted from the end of the previous eval: 4 steps between evals.
  EXPECT_EQ(eval_steps(r), (std::vector<int64_t>{1, 5, 9, 13}));
  EXPECT_EQ(r.stop_reason, StopReason::max_steps);
  EXPECT_EQ(r.steps, 13);
}

TEST(TrialRunner, EvalsAreOffTheClock) {
  Fixture f;
  f.options.spec.max_steps = 9;
  TrialResult r = f.run();
  ASSERT_EQ(r.evals.size(), 3u);
  EXPECT_NEAR(r.evals[0].accumulated_submission_time, 0.3, 1e-9);
  EXPECT_NEAR(r.evals[1].accumulated_submission_time, 1.5, 1e-9);
  EXPECT_NEAR(r.evals[2].accumulated_submission_time, 2.7, 1e-9);
  EXPECT_NEAR(r.submission_time, 2.7, 1e-9);
  EXPECT_NEAR(r.eval_time, 15.0, 1e-9);        // three evals of 5 s
  EXPECT_NEAR(r.evals[2].total_duration, 2.7 + 15.0, 1e-9);  // wall time includes the evals
}

TEST(TrialRunner, PrepareForEvalIsTimed) {
  Fixture f;
  f.algorithm.prepare_cost = 0.25;
  f.options.spec.max_steps = 5;
  TrialResult r = f.run();
  ASSERT_EQ(eval_steps(r), (std::vector<int64_t>{1, 5}));
  EXPECT_NEAR(r.evals[0].accumulated_submission_time, 0.3 + 0.25, 1e-9);
  EXPECT_NEAR(r.evals[1].accumulated_submission_time, 1.5 + 0.5, 1e-9);
}

// AlgoPerf's budget since its v0.6 runner: the trial ends at the first step that spends it, and no
// eval is made past it, so a target met only after the budget can never score.
TEST(TrialRunner, TheTrialStopsAtItsBudgetWithNoEvalPastIt) {
  Fixture f;
  f.options.spec.time_budget = 2.0;
  f.workload.validation_values = {0.5, 0.5, 0.95};  // the 3rd eval (t = 2.7 s) would reach
  TrialResult r = f.run();
  // Evals at 0.3 s and 1.5 s; step 7 ends at 2.1 s, past the budget: no more steps, no eval.
  EXPECT_EQ(eval_steps(r), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(f.workload.evals_seen(), 2u);
  EXPECT_EQ(r.steps, 7);
  EXPECT_EQ(r.stop_reason, StopReason::budget);
  EXPECT_EQ(r.status, TrialStatus::not_reached);
  EXPECT_NEAR(r.submission_time, 2.1, 1e-9);
}

TEST(TrialRunner, PreparingForAnEvalThatSpendsTheBudgetEndsTheTrialWithoutTheEval) {
  Fixture f;
  f.options.spec.time_budget = 1.2;
  f.algorithm.prepare_cost = 1.0;  // step 1 ends at 0.3 s; preparing its eval ends at 1.3 s
  f.workload.validation_values = {0.95};
  TrialResult r = f.run();
  EXPECT_TRUE(r.evals.empty());
  EXPECT_EQ(f.workload.evals_seen(), 0u);
  EXPECT_EQ(r.steps, 1);
  EXPECT_EQ(r.stop_reason, StopReason::budget);
  EXPECT_EQ(r.status, TrialStatus::not_reached);
}

TEST(TrialRunner, BudgetMultiplierScalesTheWorkloadBudget) {
  WorkloadSpec spec = test_spec();
  spec.time_budget = 1.0;
  Fixture f(spec);
  f.options.spec.budget_multiplier = 1.4;  // 1.4 s: step 5 ends at 1.5 s, past it
  TrialResult r = f.run();
  EXPECT_DOUBLE_EQ(r.time_budget, 1.4);
  EXPECT_EQ(eval_steps(r), (std::vector<int64_t>{1}));
  EXPECT_EQ(r.steps, 5);
}

TEST(TrialRunner, GoalsAreStickyAndTrainingContinuesToTheTestTarget) {
  Fixture f;
  // Validation reaches 0.95 at the 2nd eval then drops; test reaches its target only at the 4th.
  f.workload.validation_values = {0.5, 0.95, 0.7, 0.7, 0.7};
  f.workload.test_values = {0.5, 0.6, 0.7, 0.85, 0.9};
  TrialResult r = f.run();
  EXPECT_EQ(eval_steps(r), (std::vector<int64_t>{1, 5, 9, 13}));
  EXPECT_EQ(r.stop_reason, StopReason::targets_reached);
  EXPECT_EQ(r.status, TrialStatus::reached);
  ASSERT_TRUE(r.time_to_target.has_value());
  EXPECT_NEAR(*r.time_to_target, 1.5, 1e-9);
  EXPECT_EQ(*r.steps_to_target, 5);
  EXPECT_EQ(*r.eval_index_to_target, 1);
  EXPECT_NEAR(*r.test_time_to_target, 3.9, 1e-9);
  EXPECT_DOUBLE_EQ(*r.best_validation, 0.95);
}

// What the study store keeps of a trial is the result as the runner left it: a TrialResult is a
// TrialOutcome, nothing copied.
TEST(TrialRunner, TheOutcomeIsTheResultsStatusStopReasonClocksAndTargets) {
  Fixture f;
  f.workload.validation_values = {0.5, 0.95, 0.7, 0.7, 0.7};
  f.workload.test_values = {0.5, 0.6, 0.7, 0.85, 0.9};
  const TrialResult r = f.run();
  const TrialOutcome& o = r;
  EXPECT_EQ(o.status, TrialStatus::reached);
  EXPECT_EQ(o.stop_reason, StopReason::targets_reached);
  EXPECT_EQ(o.steps, 13);  // the test target too, at the fourth eval (steps 1, 5, 9, 13)
  EXPECT_GT(o.submission_time, 0.0);
  EXPECT_GT(o.eval_time, 0.0);
  EXPECT_GE(o.total_duration, o.submission_time + o.eval_time);
  EXPECT_EQ(o.time_to_target, r.time_to_target);
  EXPECT_EQ(o.steps_to_target, std::optional<int64_t>(5));
  EXPECT_EQ(o.eval_index_to_target, std::optional<int64_t>(1));
  EXPECT_EQ(o.best_validation, std::optional<double>(0.95));
  Fixture d;
  d.algorithm.diverge_at_step = 6;
  const TrialResult diverged = d.run();
  EXPECT_EQ(diverged.status, TrialStatus::diverged);
  EXPECT_EQ(diverged.stop_reason, StopReason::diverged);
  EXPECT_NE(diverged.message.find("step 7"), std::string::npos);
  EXPECT_FALSE(diverged.time_to_target);
}

TEST(TrialRunner, InRunCheckIsStrictButScoringIsNot) {
  Fixture f;
  f.workload.validation_values = {0.9};  // exactly the target: never "reached" in-run
  f.workload.test_values = {0.9};
  f.options.spec.max_steps = 9;
  TrialResult r = f.run();
  EXPECT_EQ(r.stop_reason, StopReason::max_steps);  // the run did not stop at the target
  ASSERT_TRUE(r.time_to_target.has_value());  // but scoring (>=) counts the first eval
  EXPECT_EQ(*r.steps_to_target, 1);
  EXPECT_EQ(r.status, TrialStatus::reached);
}

TEST(TrialRunner, DivergenceEndsTheTrialAsAResult) {
  Fixture f;
  f.algorithm.diverge_at_step = 6;
  TrialResult r = f.run();
  EXPECT_EQ(r.status, TrialStatus::diverged);
  EXPECT_TRUE(r.diverged());
  EXPECT_EQ(r.stop_reason, StopReason::diverged);
  EXPECT_EQ(r.steps, 7);
  EXPECT_NE(r.message.find("step 7"), std::string::npos);
}

TEST(TrialRunner, DivergenceAfterReachingTheTargetKeepsTheTime) {
  Fixture f;
  f.workload.validation_values = {0.95};
  f.workload.test_values = {0.5};
  f.algorithm.diverge_at_step = 6;
  TrialResult r = f.run();
  EXPECT_EQ(r.status, TrialStatus::reached);
  EXPECT_TRUE(r.diverged());
  EXPECT_EQ(*r.steps_to_target, 1);
}

TEST(TrialRunner, EvalEveryNSteps) {
  Fixture f;
  f.options.spec.eval_every_steps = 4;
  f.options.spec.max_steps = 12;
  TrialResult r = f.run();
  EXPECT_EQ(eval_steps(r), (std::vector<int64_t>{1, 4, 8, 12}));
}

TEST(TrialRunner, TrainingCompleteSignalStopsAfterAnEval) {
  Fixture f;
  f.algorithm.complete_at_step = 2;  // the third step
  TrialResult r = f.run();
  EXPECT_EQ(eval_steps(r), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(r.stop_reason, StopReason::training_complete);
}

TEST(TrialRunner, StepsAndSeedsReachTheAlgorithm) {
  Fixture f;
  f.options.spec.max_steps = 4;
  f.run();
  EXPECT_EQ(f.algorithm.seen_steps, (std::vector<int64_t>{0, 1, 2, 3}));
  std::set<uint64_t> distinct(f.algorithm.seen_seeds.begin(), f.algorithm.seen_seeds.end());
  EXPECT_EQ(distinct.size(), 4u);
  Fixture g;
  g.options.spec.max_steps = 4;
  g.run();
  EXPECT_EQ(f.algorithm.seen_seeds, g.algorithm.seen_seeds);  // reproducible per-step seeds
}

TEST(TrialRunner, UnknownHyperparameterIsAnInputErrorBeforeTraining) {
  Fixture f;
  Hyperparameters hp;
  hp.set("learning_rat", 0.1);
  EXPECT_THROW(run_trial(f.workload, f.algorithm, hp, f.options), InputError);
  EXPECT_TRUE(f.algorithm.seen_steps.empty());
}

TEST(TrialRunner, WritesTheReferenceLayout) {
  Fixture f;
  f.workload.validation_values = {0.5, 0.95};
  f.workload.test_values = {0.5, 0.85};
  const std::string dir = ::testing::TempDir() + "/pacer_runner_layout";
  std::filesystem::remove_all(dir);
  f.options.out_dir = dir;
  TrialResult r = f.run();
  for (const char* file : {"hparams.json", "meta_data_0.json", "eval_measurements.csv", "trial.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + file)) << file;
  }
  std::ifstream csv(dir + "/eval_measurements.csv");
  std::string header, row;
  std::getline(csv, header);
  EXPECT_EQ(header,
            "accumulated_eval_time,accumulated_logging_time,accumulated_submission_time,global_step,preemption_count,"
            "score,test/accuracy,test/num_examples,total_duration,train/accuracy,validation/accuracy,"
            "validation/num_examples");
  int rows = 0;
  while (std::getline(csv, row)) ++rows;
  EXPECT_EQ(rows, 2);
  auto trial = nlohmann::json::parse(std::ifstream(dir + "/trial.json"));
  EXPECT_EQ(trial["status"], "reached");
  EXPECT_EQ(trial["steps_to_target"], 5);
  auto hparams = nlohmann::json::parse(std::ifstream(dir + "/hparams.json"));
  EXPECT_DOUBLE_EQ(hparams["learning_rate"].get<double>(), 0.1);  // the default was filled in
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << "leftover " << entry.path();
  }
}

// What `pacer run` prints: a reached trial with a cpu clock and a noise scale, then a trial that
// reached nothing and saved nothing.
TEST(TrialSummary, SaysTheOutcomeTheTargetTheTimesTheBudgetAndWhereTheResultsAre) {
  WorkloadSpec spec;
  spec.target_metric = "accuracy";
  spec.validation_target = 0.85;
  TrialResult r;
  r.status = TrialStatus::reached;
  r.stop_reason = StopReason::targets_reached;
  r.time_to_target = 2.0349;
  r.steps_to_target = 600;
  r.best_validation = 0.86123;
  r.best_validation_step = 700;
  r.steps = 700;
  r.submission_time = 2.5;
  r.eval_time = 0.75;
  r.time_budget = 10.5;
  r.clock = "cpu";
  EvalRecord last;
  last.step = 700;
  last.metrics["train/noise_scale"] = 812.34;
  r.evals.push_back(last);
  const std::string text = trial_summary(r, spec, "runs/x");
  EXPECT_EQ(text,
            "status:              reached (" + std::string(to_string(StopReason::targets_reached)) + ")\n"
            "validation target:   accuracy >= 0.85\n"
            "time to target:      2.035 s\n"
            "steps to target:     600\n"
            "test time to target: not reached\n"
            "best validation:     0.8612 at step 700\n"
            "steps:               700 in 2.50 s of submission time (cpu clock) (budget 10.5 s), 0.75 s of evals\n"
            "noise scale B_simple: 812.3 (smoothed, at step 700)\n"
            "results:             runs/x/trial.json\n");
  TrialResult missed;
  missed.status = TrialStatus::not_reached;
  missed.stop_reason = StopReason::budget;
  missed.message = "out of time";
  spec.higher_is_better = false;
  spec.target_metric = "loss";
  const std::string other = trial_summary(missed, spec, "");
  EXPECT_NE(other.find("message:             out of time\n"), std::string::npos) << other;
  EXPECT_NE(other.find("validation target:   loss <= 0.85\n"), std::string::npos) << other;
  EXPECT_NE(other.find("time to target:      not reached\n"), std::string::npos) << other;
  EXPECT_EQ(other.find("best validation"), std::string::npos) << other;
  EXPECT_EQ(other.find("(wall clock)"), std::string::npos) << other;
  EXPECT_NE(other.find("results:             not saved"), std::string::npos) << other;
}

}  // namespace
}  // namespace pacer
