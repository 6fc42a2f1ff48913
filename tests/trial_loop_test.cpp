// The parts of the trial loop on their own: the eval schedule, the stop rules, the trial spec's
// stored form (including a study store written before the spec existed), rank synchronization
// over the in-process communicator, and gradient combining owned by the framework.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <functional>
#include <chrono>
#include <thread>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "algorithms/gradient_computer.h"
#include "algorithms/registry.h"
#include "core/clock.h"
#include "core/error.h"
#include "distributed/in_process_communicator.h"
#include "models/mlp.h"
#include "store/study_store.h"
#include "train/eval_schedule.h"
#include "train/rank_sync.h"
#include "train/stop_rule.h"
#include "train/trial_runner.h"
#include "catalog/trial_spec.h"
#include "run/racing.h"
#include "tune/study_summary.h"
#include "workloads/registry.h"

namespace pacer {
namespace {

WorkloadSpec spec_with_period(double period) {
  WorkloadSpec s;
  s.name = "w";
  s.target_metric = "accuracy";
  s.eval_period_sec = period;
  return s;
}

TEST(EvalSchedule, PeriodicCadenceCountsFromTheEndOfTheLastEval) {
  PeriodicEvalCadence cadence(2.0);
  EXPECT_FALSE(cadence.due(5, 11.9, 10.0));
  EXPECT_TRUE(cadence.due(5, 12.0, 10.0));
}

TEST(EvalSchedule, StepCadencesAndTheirInputErrors) {
  EveryNStepsCadence every(4);
  EXPECT_FALSE(every.due(3, 0, 0));
  EXPECT_TRUE(every.due(8, 0, 0));
  AtStepsCadence at({2, 5, 9});
  EXPECT_TRUE(at.due(5, 0, 0));
  EXPECT_FALSE(at.due(6, 0, 0));
  EXPECT_THROW(EveryNStepsCadence(0), InputError);
  EXPECT_THROW(AtStepsCadence({3, 3}), InputError);
  EXPECT_THROW(AtStepsCadence({0, 4}), InputError);
}

TEST(EvalSchedule, FirstLastAndCompleteStepsAreAlwaysEvaluated) {
  EvalSchedule schedule(std::make_unique<EveryNStepsCadence>(100), /*max_steps=*/250);
  EXPECT_TRUE(schedule.due(1, 0, 0, false));
  EXPECT_FALSE(schedule.due(2, 0, 0, false));
  EXPECT_TRUE(schedule.due(200, 0, 0, false));
  EXPECT_TRUE(schedule.due(250, 0, 0, false));  // the step limit
  EXPECT_TRUE(schedule.due(17, 0, 0, true));    // the algorithm is done
}

TEST(EvalSchedule, TheSpecPicksTheCadence) {
  TrialSpec spec;
  const WorkloadSpec w = spec_with_period(3.0);
  EXPECT_TRUE(make_eval_cadence(spec, w)->due(7, 3.0, 0.0));  // the workload's period
  spec.eval_every_steps = 10;
  EXPECT_FALSE(make_eval_cadence(spec, w)->due(7, 1e9, 0.0));
  spec.eval_at_steps = {7};
  EXPECT_TRUE(make_eval_cadence(spec, w)->due(7, 0.0, 0.0));  // given steps win
  EXPECT_EQ(spec.describe_eval_cadence(w), "1 given steps up to 7");
}

TEST(StopRules, TheFirstRuleThatFiresNamesTheReason) {
  TrialSpec spec;
  spec.max_steps = 10;
  RunnerState state;
  state.step = 10;
  state.validation_target_reached = state.test_target_reached = true;
  const StopRules rules = standard_stop_rules(spec);
  EXPECT_EQ(first_stop(rules, {state, false, true, true}), StopReason::targets_reached);
  state.test_target_reached = false;  // both targets are needed
  EXPECT_EQ(first_stop(rules, {state, false, true, true}), StopReason::budget);
  EXPECT_EQ(first_stop(rules, {state, true, true, true}), StopReason::training_complete);
  EXPECT_EQ(first_stop(rules, {state, true, false, true}), StopReason::max_steps);
  state.step = 3;
  EXPECT_EQ(first_stop(rules, {state, true, false, true}), StopReason::interrupted);
  EXPECT_EQ(first_stop(rules, {state, true, false, false}), std::nullopt);
  spec.stop_at_targets = false;  // target setting trains on
  state.test_target_reached = true;
  EXPECT_EQ(first_stop(standard_stop_rules(spec), {state, true, false, false}), std::nullopt);
}

TEST(StopRules, GoalIsStrictAndReadsTheLastEval) {
  TrialSpec spec;
  spec.goal = TrainingGoal{"validation/loss", 0.5, false};
  const StopRules rules = standard_stop_rules(spec);
  RunnerState state;
  EXPECT_EQ(first_stop(rules, {state}), std::nullopt);  // no eval yet
  state.evals.push_back(EvalRecord{1, 0, 0, 0, 0, 0, {{"validation/loss", 0.5}}});
  EXPECT_EQ(first_stop(rules, {state}), std::nullopt);  // equal is not better
  state.evals.push_back(EvalRecord{2, 0, 0, 0, 0, 0, {{"validation/loss", 0.49}}});
  EXPECT_EQ(first_stop(rules, {state}), StopReason::goal_reached);
}

TEST(StopReasons, TextRoundTripsAndUnknownTextIsAnInputError) {
  for (StopReason r : {StopReason::targets_reached, StopReason::budget, StopReason::training_complete,
                       StopReason::max_steps, StopReason::goal_reached, StopReason::interrupted,
                       StopReason::diverged, StopReason::error, StopReason::race_study_best}) {
    EXPECT_EQ(parse_stop_reason(to_string(r)), r);
  }
  EXPECT_TRUE(is_race_stop(StopReason::race_study_best));
  EXPECT_FALSE(is_race_stop(StopReason::budget));
  EXPECT_THROW(parse_stop_reason("finished"), InputError);
}

// The text the study store keeps for a sweep's trials, as written before TrialSpec existed (the
// optional parts appear only when set, in this order).
TEST(TrialSpecJson, StoredSettingsReadBackToTheSameText) {
  const std::vector<std::string> stored = {
      R"({"device":"auto","data_dir":"","eval_every_steps":0,"max_steps":0,"batch_size":null,"time_budget":null,"budget_multiplier":1.0,"stop_at_targets":true})",
      R"({"device":"cpu","data_dir":"/data","eval_every_steps":50,"max_steps":2000,"batch_size":256,"time_budget":120.0,"budget_multiplier":1.5,"stop_at_targets":false})",
      R"({"device":"auto","data_dir":"","eval_every_steps":0,"max_steps":4096,"batch_size":64,"time_budget":1000000000.0,"budget_multiplier":1.0,"stop_at_targets":false,"noise_scale_shards":8,"goal":{"metric":"validation/accuracy","value":0.8,"higher_is_better":true},"combine":"adasum","virtual_workers":4,"combine_deltas":true,"eval_at_steps":[1,2,4,8,4096],"eval_splits":["validation"]})",
  };
  for (const auto& text : stored) EXPECT_EQ(TrialSpec::from_json(text).to_json(), text);
  const TrialSpec scale = TrialSpec::from_json(stored[2]);
  EXPECT_EQ(scale.data_parallel.combine, "adasum");
  EXPECT_EQ(scale.data_parallel.virtual_workers, 4);
  ASSERT_TRUE(scale.goal);
  EXPECT_EQ(scale.goal->metric, "validation/accuracy");
  EXPECT_EQ(scale.eval_splits, std::vector<EvalSplit>{EvalSplit::validation});
  EXPECT_THROW(TrialSpec::from_json(R"({"device":"auto"})"), Error);
  EXPECT_THROW(TrialSpec::from_json("not json"), Error);
}

// The clock is part of what a trial measures (a study's identity), written only when it is not
// the wall clock so that every study stored before the option keeps its identity.
TEST(TrialSpecJson, TheClockIsStoredOnlyWhenItIsNotTheWallClock) {
  TrialSpec spec;
  EXPECT_EQ(spec.to_json().find("clock"), std::string::npos);
  spec.clock = ClockKind::cpu;
  const std::string stored = spec.to_json();
  EXPECT_NE(stored.find(R"("clock":"cpu")"), std::string::npos) << stored;
  EXPECT_EQ(TrialSpec::from_json(stored).clock, ClockKind::cpu);
  EXPECT_EQ(TrialSpec::from_json(stored).to_json(), stored);
  std::string unknown = stored;
  unknown.replace(unknown.find("cpu"), 3, "gpu");
  EXPECT_THROW(TrialSpec::from_json(unknown), Error);
}

// The cpu clock counts the CPU time this process uses: a sleep adds (almost) nothing, work adds
// about its duration (one thread: never more than the wall time it took).
TEST(SubmissionClock, TheCpuClockCountsWorkNotWaiting) {
  EXPECT_EQ(parse_clock_kind("cpu"), ClockKind::cpu);
  EXPECT_EQ(to_string(parse_clock_kind("wall")), "wall");
  EXPECT_THROW(parse_clock_kind("gpu"), InputError);
  auto cpu = make_clock(ClockKind::cpu);
  auto wall = make_clock(ClockKind::wall);
  double c0 = cpu->now(), w0 = wall->now();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LT(cpu->now() - c0, 0.1);
  EXPECT_GE(wall->now() - w0, 0.3);
  c0 = cpu->now(), w0 = wall->now();
  volatile double sink = 0.0;
  while (cpu->now() - c0 < 0.05) sink = sink + 1.0;
  const double worked = cpu->now() - c0;
  EXPECT_GE(worked, 0.05);
  EXPECT_LE(worked, wall->now() - w0 + 0.01);
}

// The racing rule fires only once the trial's evals pass the study's best index without any of
// them (up to that index, within the budget) reaching the target by the scoring rule (<=).
TEST(StopRules, OutracedOnlyPastTheStudysBestIndexWithoutReaching) {
  WorkloadSpec spec;
  spec.target_metric = "loss";
  spec.higher_is_better = false;
  spec.validation_target = 0.5;
  auto bound = std::make_shared<std::atomic<int64_t>>(-1);
  const auto rule = stop_when_outraced(spec, bound);
  RunnerState state;
  state.time_budget = 10.0;
  auto eval = [&](double loss, double time) {
    EvalRecord e;
    e.accumulated_submission_time = time;
    e.metrics["validation/loss"] = loss;
    state.evals.push_back(e);
  };
  auto fires = [&] { return rule->check(TrialProgress{state}).has_value(); };
  eval(0.9, 1.0);
  eval(0.8, 2.0);
  EXPECT_FALSE(fires());  // no bound yet
  bound->store(2);
  EXPECT_FALSE(fires());  // eval index 2 not done yet: it may still reach there
  eval(0.7, 3.0);
  EXPECT_TRUE(fires());
  EXPECT_EQ(*rule->check(TrialProgress{state}), StopReason::race_study_best);
  state.evals[1].metrics["validation/loss"] = 0.5;  // reached (<=, as scoring) at index 1
  EXPECT_FALSE(fires());
  state.evals[1].accumulated_submission_time = 11.0;  // ... but past the budget: does not count
  EXPECT_TRUE(fires());
}

TEST(TrialSpecJson, ValidateNamesTheBadField) {
  TrialSpec spec;
  spec.eval_at_steps = {5, 3};
  EXPECT_THROW(spec.validate(), InputError);
  spec = TrialSpec{};
  spec.data_parallel.combine = "mean";
  spec.data_parallel.combine_deltas = true;
  try {
    spec.validate();
    FAIL() << "delta mode without adasum was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--adasum-mode delta needs --combine adasum"), std::string::npos);
  }
}

// tests/data/store_before_trial_spec.db: a study store written by the build before this change
// (NAdamW calibration studies: finished, interrupted and pending trials).
TEST(TrialSpecJson, AStoreFromBeforeTheChangeStillLoads) {
  const std::string copy = testing::TempDir() + "/store_before_trial_spec.db";
  std::filesystem::copy_file(std::string(PACER_SOURCE_DIR) + "/tests/data/store_before_trial_spec.db", copy,
                             std::filesystem::copy_options::overwrite_existing);
  StudyStore store(copy, StudyStoreOptions{false});
  const std::vector<StudyRecord> studies = store.studies();
  ASSERT_EQ(studies.size(), 12u);
  for (const auto& s : studies) {
    // Same text back: re-running the same command finds these studies instead of new ones.
    EXPECT_EQ(TrialSpec::from_json(s.trial_spec).to_json(), s.trial_spec) << s.name();
  }
  const auto sweeps = summarize_studies(store, studies);
  ASSERT_EQ(sweeps.size(), 4u);
  int64_t trials = 0;
  for (const auto& sweep : sweeps) {
    for (const auto& study : sweep.studies) trials += static_cast<int64_t>(study.trials.size());
  }
  EXPECT_EQ(trials, 60);
  // Its eval rows predate the preemption count column (schema 2): they read as never preempted.
  size_t evals = 0;
  for (const auto& s : studies) {
    for (const auto& t : store.trials(s.id)) {
      for (const auto& e : store.evals(t.id)) {
        ++evals;
        EXPECT_EQ(e.preemption_count, 0);
        EXPECT_FALSE(e.metrics.empty());
      }
    }
  }
  EXPECT_GT(evals, 0u);
}

std::shared_ptr<Network> small_network(uint64_t seed) {
  at::manual_seed(seed);
  return std::make_shared<Mlp>(MlpOptions{4, {3}, 1, Activation::relu, false});
}

TEST(RankSync, LocalPassesEverythingThrough) {
  auto sync = make_rank_sync(nullptr, at::kCPU);
  EXPECT_TRUE(sync->lead());
  const StepConsensus c = sync->after_step(0.25, true, false, false);
  EXPECT_EQ(c.loss, 0.25);
  EXPECT_TRUE(c.eval_due);
  EXPECT_FALSE(c.budget_spent);
  EXPECT_EQ(sync->share_decision({StopReason::budget, true, false}).stop, StopReason::budget);
}

TEST(RankSync, CollectiveAgreesOnLossEvalAndStop) {
  std::mutex mutex;
  std::vector<StepConsensus> first(3), second(3);
  std::vector<EvalDecision> decisions(3);
  run_in_process(3, [&](Communicator& comm) {
    auto sync = make_rank_sync(&comm, at::kCPU);
    const int r = comm.rank();
    // Rank 0's schedule decides the eval; rank 2 alone was interrupted.
    const StepConsensus a = sync->after_step(1.0 + r, /*eval_due=*/r != 0, /*budget_spent=*/r == 0, /*stop=*/r == 2);
    const StepConsensus b = sync->after_step(r == 1 ? NAN : 1.0, /*eval_due=*/r == 0, /*budget_spent=*/r != 0, false);
    // Only rank 0's decision counts.
    const EvalDecision d = sync->share_decision(
        r == 0 ? EvalDecision{StopReason::goal_reached, true, false} : EvalDecision{StopReason::diverged, false, true});
    std::lock_guard<std::mutex> lock(mutex);
    first[r] = a, second[r] = b, decisions[r] = d;
  });
  for (int r = 0; r < 3; ++r) {
    EXPECT_DOUBLE_EQ(first[r].loss, 2.0);  // mean of 1, 2, 3
    EXPECT_FALSE(first[r].eval_due);
    EXPECT_TRUE(first[r].budget_spent);  // rank 0's budget decides, as its schedule does
    EXPECT_TRUE(first[r].stop_requested);
    EXPECT_TRUE(std::isnan(second[r].loss));  // one rank's non-finite loss reaches all
    EXPECT_TRUE(second[r].eval_due);
    EXPECT_FALSE(second[r].budget_spent);
    EXPECT_FALSE(second[r].stop_requested);
    EXPECT_EQ(decisions[r].stop, StopReason::goal_reached);
    EXPECT_TRUE(decisions[r].validation_target_reached);
    EXPECT_FALSE(decisions[r].test_target_reached);
  }
}

TEST(RankSync, DifferentInitialParametersFailOnEveryRank) {
  // Built before the threads start: the global generator is not for concurrent seeding.
  const std::vector<std::shared_ptr<Network>> differing = {small_network(7), small_network(99)};
  const std::vector<std::shared_ptr<Network>> same = {small_network(7), small_network(7)};
  std::atomic<int> failures{0}, successes{0};
  run_in_process(2, [&](Communicator& comm) {
    try {
      make_rank_sync(&comm, at::kCPU)->verify_identical_parameters(*differing[comm.rank()]);
      ++successes;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("initial parameters differ"), std::string::npos);
      ++failures;
    }
  });
  EXPECT_EQ(failures, 2);
  EXPECT_EQ(successes, 0);
  run_in_process(2, [&](Communicator& comm) {
    make_rank_sync(&comm, at::kCPU)->verify_identical_parameters(*same[comm.rank()]);
    ++successes;
  });
  EXPECT_EQ(successes, 2);
}

// An algorithm written from scratch, not derived from the baselines: plain SGD over the
// network's parameters with the framework's gradient.
class PlainSgd : public TrainingAlgorithm {
 public:
  explicit PlainSgd(bool own_backward = false) : own_backward_(own_backward) {}
  std::string name() const override { return own_backward_ ? "own_backward_sgd" : "plain_sgd"; }
  std::vector<HyperparameterSpec> hyperparameter_specs() const override { return {}; }
  int64_t batch_size(const WorkloadSpec&) const override { return 24; }
  void init_optimizer_state(const Workload&, Network&, const Hyperparameters*, uint64_t) override {}
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override {
    at::Tensor loss = own_backward_ ? local_backward(workload, network, batch, {})
                                    : step_gradients(context, workload, network, batch, {});
    at::NoGradGuard no_grad;
    for (auto& p : network.parameters()) p.add_(p.grad(), -0.05);
    return {loss, false};
  }
  NamedTensors state() const override { return {}; }
  void load_state(const NamedTensors&) override {}

 private:
  bool own_backward_;
};

std::vector<double> validation_losses(TrainingAlgorithm& algorithm, const DataParallelSpec& dp,
                                      const std::string& out_dir = "",
                                      std::function<std::unique_ptr<TrainingAlgorithm>()> make_algorithm = {}) {
  auto workload = create_workload("synthetic_regression");
  TrialOptions options;
  options.make_algorithm = std::move(make_algorithm);
  options.out_dir = out_dir;
  options.seed = 5;
  options.prefetch = 0;
  options.spec.device = "cpu";
  options.spec.max_steps = 6;
  options.spec.eval_every_steps = 3;
  options.spec.time_budget = 1e6;
  options.spec.stop_at_targets = false;
  options.spec.data_parallel = dp;
  const TrialResult r = run_trial(*workload, algorithm, Hyperparameters{}, options);
  EXPECT_EQ(r.stop_reason, StopReason::max_steps) << r.message;
  std::vector<double> out;
  for (const auto& e : r.evals) out.push_back(e.metrics.at("validation/loss"));
  return out;
}

// With equal shards and no dropout, the mean of the shard gradients is the batch gradient: any
// algorithm taking its gradient from the step context trains the same with 3 virtual workers.
TEST(FrameworkCombining, AnyAlgorithmGetsVirtualWorkers) {
  PlainSgd one, three;
  const std::vector<double> single = validation_losses(one, {});
  const std::vector<double> combined = validation_losses(three, {"mean", 3, false});
  ASSERT_EQ(single.size(), 3u);
  ASSERT_EQ(combined.size(), single.size());
  for (size_t i = 0; i < single.size(); ++i) EXPECT_NEAR(combined[i], single[i], 1e-5 * std::abs(single[i])) << i;
  EXPECT_LT(single.back(), single.front());  // it trained
  PlainSgd summed;  // sum of 3 shard means = 3x the gradient: a different run
  EXPECT_GT(std::abs(validation_losses(summed, {"sum", 3, false}).back() - single.back()), 1e-4);
}

// Refused at its first step, before a file is written to its result folder.
TEST(FrameworkCombining, AGradientTakenAroundTheContextIsRefusedBeforeAnythingIsWritten) {
  PlainSgd own(/*own_backward=*/true);
  const std::string out = ::testing::TempDir() + "/own_backward_refused";
  std::filesystem::remove_all(out);
  try {
    validation_losses(own, {"mean", 2, false}, out);
    FAIL() << "an uncombined gradient was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("own_backward_sgd"), std::string::npos) << e.what();
  }
  std::vector<std::string> written;
  for (const auto& entry : std::filesystem::directory_iterator(out)) written.push_back(entry.path().filename());
  EXPECT_TRUE(written.empty()) << written.front();
  std::filesystem::remove_all(out);
}

// An algorithm's own measurements of a step: the step count, under a name of the test's choosing.
class MeasuringSgd : public PlainSgd {
 public:
  explicit MeasuringSgd(std::string metric) : metric_(std::move(metric)) {}
  std::string name() const override { return "measuring_sgd"; }
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override {
    UpdateResult r = PlainSgd::update(workload, network, batch, context);
    r.metrics[metric_] = static_cast<double>(context.step + 1);
    return r;
  }

 private:
  std::string metric_;
};

TrialResult measured_run(TrainingAlgorithm& algorithm, const std::string& out_dir, const DataParallelSpec& dp = {}) {
  auto workload = create_workload("synthetic_regression");
  TrialOptions options;
  options.out_dir = out_dir;
  options.seed = 5;
  options.spec.max_steps = 6;
  options.spec.eval_every_steps = 3;
  options.spec.time_budget = 1e6;
  options.spec.stop_at_targets = false;
  options.spec.data_parallel = dp;
  options.make_algorithm = [&algorithm] { return create_algorithm(algorithm.name()); };
  return run_trial(*workload, algorithm, Hyperparameters{}, options);
}

TEST(AlgorithmMetrics, AnAlgorithmsOwnMetricsAreLoggedAtEveryEval) {
  const std::string out = ::testing::TempDir() + "/algorithm_metrics";
  std::filesystem::remove_all(out);
  MeasuringSgd algorithm("steps_seen");
  const TrialResult r = measured_run(algorithm, out);
  ASSERT_EQ(r.stop_reason, StopReason::max_steps) << r.message;
  ASSERT_EQ(r.evals.size(), 3u);  // after steps 1, 3 and 6
  for (const auto& e : r.evals) EXPECT_EQ(e.metrics.at("algorithm/steps_seen"), static_cast<double>(e.step));
  std::ifstream csv(out + "/eval_measurements.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_NE(header.find(",algorithm/steps_seen,"), std::string::npos) << header;
  std::filesystem::remove_all(out);
  // Delta mode over virtual workers (the other worker's instance comes from the registry, through
  // the run's factory): the workers' mean, here of equal values.
  const auto names = algorithm_names();
  if (std::find(names.begin(), names.end(), "measuring_sgd") == names.end()) {
    register_algorithm("measuring_sgd", [] { return std::make_unique<MeasuringSgd>("steps_seen"); });
  }
  MeasuringSgd delta("steps_seen");
  const TrialResult d = measured_run(delta, "", {"adasum", 2, true});
  ASSERT_EQ(d.evals.size(), 3u) << d.message;
  EXPECT_EQ(d.evals.back().metrics.at("algorithm/steps_seen"), 6.0);
}

TEST(AlgorithmMetrics, ANameThatWouldBreakTheLogIsTheAlgorithmsError) {
  MeasuringSgd algorithm("loss,share");
  const TrialResult r = measured_run(algorithm, "");
  EXPECT_EQ(r.status, TrialStatus::failed);
  EXPECT_TRUE(r.submission_error);
  EXPECT_NE(r.message.find("'loss,share'"), std::string::npos) << r.message;
}

// Delta mode keeps one optimizer state per worker: the framework makes the extra workers'
// instances with the caller's factory (the commands' take the registry's, so an algorithm
// registered at run time gets it too); without one, the run is refused before its first step.
TEST(Registries, AnAlgorithmRegisteredAtRunTimeRunsEverywhere) {
  register_algorithm("plain_sgd", [] { return std::make_unique<PlainSgd>(); });
  EXPECT_THROW(register_algorithm("plain_sgd", [] { return std::make_unique<PlainSgd>(); }), Error);
  EXPECT_THROW(register_algorithm("nadamw", [] { return std::make_unique<PlainSgd>(); }), Error);
  EXPECT_EQ(algorithm_names().back(), "plain_sgd");
  EXPECT_EQ(create_algorithm("plain_sgd")->name(), "plain_sgd");
  EXPECT_TRUE(algorithm_info("plain_sgd").hyperparameters.empty());
  PlainSgd algorithm;
  int made = 0;
  const std::vector<double> deltas = validation_losses(algorithm, {"adasum", 3, true}, "", [&made] {
    ++made;
    return create_algorithm("plain_sgd");
  });
  ASSERT_EQ(deltas.size(), 3u);
  EXPECT_LT(deltas.back(), deltas.front());
  EXPECT_EQ(made, 2);  // workers 1 and 2; worker 0 is the trial's own instance
  auto workload = create_workload("synthetic_regression");
  TrialOptions options;
  options.spec.device = "cpu";
  options.spec.max_steps = 2;
  options.spec.data_parallel = {"adasum", 2, true};
  PlainSgd alone;
  try {
    run_trial(*workload, alone, Hyperparameters{}, options);
    FAIL() << "delta mode without a factory ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("delta mode over 2 virtual workers needs a fresh instance of 'plain_sgd'"),
              std::string::npos)
        << e.what();
  }
}

TEST(Registries, AWorkloadRegisteredAtRunTimeIsListedAndCreated) {
  WorkloadSpec spec = workload_spec("synthetic_regression");
  spec.name = "synthetic_again";
  register_workload(spec, [](const WorkloadSpec& s) {
    auto w = create_workload("synthetic_regression");
    EXPECT_EQ(s.name, "synthetic_again");
    return w;
  });
  EXPECT_THROW(register_workload(spec, [](const WorkloadSpec&) { return create_workload("synthetic_regression"); }),
               Error);
  EXPECT_EQ(workload_spec("synthetic_again").validation_target, spec.validation_target);
  EXPECT_EQ(workload_specs().back().name, "synthetic_again");
  EXPECT_NE(create_workload("synthetic_again"), nullptr);
}

}  // namespace
}  // namespace pacer
