// Checkpoints as a user meets them: `kill -9` a `pacer run --checkpoint-every` mid-way, `--resume`
// it, and every metric of eval_measurements.csv equals an uninterrupted run's (times excepted);
// preemption_count and meta_data_1.json say it was resumed. Bad checkpoints are input errors:
// damaged, edited, impossible or of a trial defined otherwise; a resume never replaces a result.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <fstream>
#include <cmath>
#include <map>
#include <sstream>
#include <thread>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "algorithms/gradient_computer.h"
#include "algorithms/registry.h"
#include "core/checksum.h"
#include "core/hyperparameter_builder.h"
#include "models/flat_parameters.h"
#include "train/state_check.h"
#include "workloads/registry.h"
#include "store/study_store.h"
#include "support/child_process.h"
#include "support/cli_runner.h"
#include "support/tmpfs_mount.h"

namespace pacer {
namespace {

class CheckpointTest : public testing::CliFixture {};

pid_t start(const std::string& command, const std::string& log) { return testing::start_child(command, {}, log); }

using testing::wait_exit;

// The CSV as columns of text cells.
std::map<std::string, std::vector<std::string>> read_csv(const std::string& path) {
  std::istringstream in(testing::read_file(path));
  std::string line, cell;
  std::getline(in, line);
  std::vector<std::string> names;
  std::istringstream header(line);
  while (std::getline(header, cell, ',')) names.push_back(cell);
  std::map<std::string, std::vector<std::string>> columns;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (size_t i = 0; std::getline(row, cell, ',') && i < names.size(); ++i) columns[names[i]].push_back(cell);
  }
  return columns;
}

// The step of the checkpoint in folder `dir` (-1: none yet).
int64_t checkpoint_step(const std::string& dir) {
  const std::string text = testing::read_file(dir + "/state.json");
  const auto at = text.find("\"step\":");
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + 7));
}

TEST_F(CheckpointTest, AKilledRunResumesWithTheMetricsOfAnUninterruptedOne) {
  const std::string run = " run -w fmnist_mlp -a nadamw --seed 3 --max-steps 1500 --eval-every 250 --ignore-targets "
                          "--budget 100000 --threads 1 -q --set dropout_rate=0.1";
  auto reference = pacer(run + " --out '" + dir_ + "/reference'");
  ASSERT_EQ(reference.code, 0) << reference.err;

  // Checkpoints between evals (every 150 steps, evals every 250): the gradient norms of the steps
  // since the last eval travel in the checkpoint, so train/grad_norm_mean and _max match too.
  const std::string cut = dir_ + "/cut";
  const pid_t pid = start("'" + std::string(PACER_BINARY) + "'" + run + " --checkpoint-every 150 --out '" + cut + "'",
                          dir_ + "/cut.log");
  const auto started = std::chrono::steady_clock::now();
  while (checkpoint_step(cut + "/checkpoint") < 500) {
    ASSERT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(120)) << testing::read_file(dir_ + "/cut.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ASSERT_EQ(wait_exit(pid), 128 + SIGKILL) << "the run ended before it could be killed";
  const auto before = read_csv(cut + "/eval_measurements.csv");
  ASSERT_LT(before.at("global_step").size(), read_csv(dir_ + "/reference/eval_measurements.csv").at("global_step").size());

  auto resumed = pacer(run + " --checkpoint-every 150 --resume --out '" + cut + "'");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto a = read_csv(dir_ + "/reference/eval_measurements.csv"), b = read_csv(cut + "/eval_measurements.csv");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.at("global_step"), b.at("global_step"));
  ASSERT_TRUE(a.count("train/grad_norm_mean") && a.count("train/grad_norm_max"));
  for (const auto& [name, cells] : a) {
    if (name.rfind("accumulated_", 0) == 0 || name == "total_duration" || name == "score" || name == "preemption_count") continue;
    for (size_t i = 0; i < cells.size(); ++i) {
      EXPECT_NEAR(std::stod(b.at(name)[i]), std::stod(cells[i]), 1e-9 * std::abs(std::stod(cells[i])) + 1e-12)
          << name << " at eval " << i;
    }
  }
  // Rows logged before the kill keep 0; the ones after the resume say 1.
  const auto& preemptions = b.at("preemption_count");
  EXPECT_EQ(preemptions.front(), "0");
  EXPECT_EQ(preemptions.back(), "1");
  EXPECT_TRUE(std::filesystem::exists(cut + "/meta_data_1.json"));
  EXPECT_NE(testing::read_file(cut + "/trial.json").find("\"stop_reason\": \"max_steps\""), std::string::npos);
}

TEST_F(CheckpointTest, CorruptOrForeignCheckpointsAndBadOptionsAreInputErrors) {
  const std::string run = " run -w synthetic_regression -a sgd --max-steps 40 --eval-every 20 --threads 1 -q";
  auto r = pacer(run + " --checkpoint-every 20 --out '" + dir_ + "/a'");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_GE(checkpoint_step(dir_ + "/a/checkpoint"), 20);
  std::filesystem::remove(dir_ + "/a/trial.json");  // as a kill -9 after the last checkpoint leaves it
  // Another seed: not this trial's checkpoint.
  r = pacer(run + " --seed 9 --resume --out '" + dir_ + "/a'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("belongs to"), std::string::npos) << r.err;
  // A damaged state file is named.
  std::ofstream(dir_ + "/a/checkpoint/state.json") << "{ not json";
  r = pacer(run + " --resume --out '" + dir_ + "/a'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("state.json"), std::string::npos) << r.err;
  r = pacer(run + " --checkpoint-every 5x --out '" + dir_ + "/b'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--checkpoint-every"), std::string::npos) << r.err;
  r = pacer(run + " --checkpoint-every 10");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  // --resume without a checkpoint starts afresh.
  r = pacer(run + " --resume --out '" + dir_ + "/fresh'");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(CheckpointTest, KeepBestHoldsTheCheckpointOfTheBestValidationEval) {
  auto r = pacer(" run -w synthetic_regression -a sgd --max-steps 200 --eval-every 20 --threads 1 -q --ignore-targets "
                 "--set learning_rate=0.05 --keep-best --out '" + dir_ + "/best'");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string trial = testing::read_file(dir_ + "/best/trial.json");
  const auto at = trial.find("\"best_validation_step\": ");
  ASSERT_NE(at, std::string::npos) << trial;
  EXPECT_EQ(checkpoint_step(dir_ + "/best/checkpoint_best"), std::stoll(trial.substr(at + 24)));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/best/checkpoint"));  // no periodic ones were asked for
}

// Edits `dir`/state.json with `change` and records the checksum of the edited text, as someone
// who knows the format could: the values themselves must then be checked.
template <typename Change>
void edit_state(const std::string& dir, Change change) {
  auto j = nlohmann::ordered_json::parse(testing::read_file(dir + "/state.json"));
  j.erase("state_crc32");
  change(j);
  j["state_crc32"] = crc32_of_text(j.dump());
  std::ofstream(dir + "/state.json") << j.dump();
}

// On the cpu clock the thread count is part of a trial's definition: N threads advance that clock
// about N times as fast, so a resume with another count would join two measures into one time.
// On the wall clock the threads are the hardware's to choose.
TEST_F(CheckpointTest, ACpuClockCheckpointResumesOnlyWithItsThreadCount) {
  const std::string run = " run -w synthetic_regression -a sgd --max-steps 40 --eval-every 20 -q --checkpoint-every 20";
  for (const std::string clock : {"cpu", "wall"}) {
    const std::string out = dir_ + "/" + clock, state = out + "/checkpoint/state.json";
    auto r = pacer(run + " --clock " + clock + " --threads 1 --out '" + out + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto definition = nlohmann::json::parse(testing::read_file(state)).at("definition");
    EXPECT_EQ(definition.contains("threads"), clock == "cpu") << definition.dump();
    std::filesystem::remove(out + "/trial.json");  // as a kill -9 after the last checkpoint leaves it
    r = pacer(run + " --clock " + clock + " --threads 2 --resume --out '" + out + "'");
    if (clock == "wall") {
      EXPECT_EQ(r.code, 0) << r.err;
      continue;
    }
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("belongs to a trial defined otherwise: threads (1 in the checkpoint, 2 now)"),
              std::string::npos) << r.err;
    // A checkpoint written before the count was recorded resumes as before.
    edit_state(out + "/checkpoint", [](nlohmann::ordered_json& j) { j["definition"].erase("threads"); });
    r = pacer(run + " --clock cpu --threads 2 --resume --out '" + out + "'");
    EXPECT_EQ(r.code, 0) << r.err;
  }
}

TEST_F(CheckpointTest, ACheckpointCannotLieAndAResumeNeverReplacesAResult) {
  const std::string run = " run -w synthetic_regression -a momentum --max-steps 40 --eval-every 20 --threads 1 -q";
  const std::string out = dir_ + "/a", checkpoint = out + "/checkpoint";
  auto r = pacer(run + " --checkpoint-every 20 --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string finished = testing::read_file(out + "/trial.json"), hparams = testing::read_file(out + "/hparams.json");
  // A finished run: nothing to resume, and its result stays as it was.
  r = pacer(run + " --checkpoint-every 20 --resume --out '" + out + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("holds a finished run (stop reason: max_steps)"), std::string::npos) << r.err;
  EXPECT_EQ(testing::read_file(out + "/trial.json"), finished);
  std::filesystem::remove(out + "/trial.json");  // as a kill -9 after the last checkpoint leaves it

  // Any other definition of the trial is refused, naming what differs.
  const std::pair<std::string, std::string> changes[] = {
      {" --set learning_rate=0.3", "hyperparameters.learning_rate"},
      {" --set dropout_rate=0.1", "hyperparameters.dropout_rate"},
      {" --self-tuning", "ruleset"},
      {" --budget 7", "time_budget"},
      {" --eval-splits validation", "spec.eval_splits"},
  };
  for (const auto& [option, named] : changes) {
    r = pacer(run + option + " --checkpoint-every 20 --resume --out '" + out + "'");
    EXPECT_EQ(r.code, 2) << option;
    EXPECT_NE(r.err.find("belongs to a trial defined otherwise: "), std::string::npos) << option << "\n" << r.err;
    EXPECT_NE(r.err.find(" " + named + " ("), std::string::npos) << option << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // no stack trace
  }
  EXPECT_EQ(testing::read_file(out + "/hparams.json"), hparams);

  // Damage: 24 bytes changed in the middle of the tensor file, its size unchanged.
  const auto tensors = nlohmann::json::parse(testing::read_file(checkpoint + "/state.json")).at("tensors").get<std::string>();
  const std::string intact = testing::read_file(checkpoint + "/" + tensors);
  std::string damaged = intact;
  for (size_t i = 0; i < 24; ++i) damaged[damaged.size() / 2 + i] ^= 0x55;
  std::ofstream(checkpoint + "/" + tensors, std::ios::binary) << damaged;
  r = pacer(run + " --checkpoint-every 20 --resume --out '" + out + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(tensors + " is damaged"), std::string::npos) << r.err;
  std::ofstream(checkpoint + "/" + tensors, std::ios::binary) << intact;

  // An edited record: the evals emptied (it used to drop the CSV rows before the checkpoint).
  const std::string state = testing::read_file(checkpoint + "/state.json");
  {
    auto j = nlohmann::ordered_json::parse(state);
    j["evals"] = nlohmann::ordered_json::array();
    std::ofstream(checkpoint + "/state.json") << j.dump();
  }
  r = pacer(run + " --checkpoint-every 20 --resume --out '" + out + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("was edited or damaged"), std::string::npos) << r.err;

  // Impossible values, even with a matching checksum.
  const std::vector<std::pair<std::function<void(nlohmann::ordered_json&)>, std::string>> impossible = {
      {[](auto& j) { j["step"] = -5; }, "step -5"},
      {[](auto& j) { j["step"] = 4000; }, "past --max-steps"},
      {[](auto& j) { j["accumulated_submission_time"] = -1.0; }, "negative or non-finite accumulated time"},
      {[](auto& j) { j["algorithm_state"].erase(j["algorithm_state"].size() - 1); }, "the algorithm state it lists"},
  };
  for (const auto& [change, named] : impossible) {
    std::ofstream(checkpoint + "/state.json") << state;
    edit_state(checkpoint, change);
    r = pacer(run + " --checkpoint-every 20 --resume --out '" + out + "'");
    EXPECT_EQ(r.code, 2) << named;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
  }

  // The intact checkpoint resumes, also as written before 2026-11-27 (the targets reached named
  // AlgoPerf's way, "goal"), and a killed writer's temporary files are cleaned up.
  std::ofstream(checkpoint + "/state.json") << state;
  edit_state(checkpoint, [](auto& j) {
    for (const std::string split : {"validation", "test"}) {
      j[split + "_goal_reached"] = j.at(split + "_target_reached");
      j.erase(split + "_target_reached");
    }
  });
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const std::string leftover = checkpoint + "/state.json.tmp" + std::to_string(gone);
  std::ofstream(leftover) << "half";
  r = pacer(run + " --checkpoint-every 20 --resume --out '" + out + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(leftover));

  // Results without a checkpoint, or a `checkpoint` that is a file: refused, nothing replaced.
  ASSERT_EQ(pacer(run + " --out '" + dir_ + "/plain'").code, 0);
  std::filesystem::remove(dir_ + "/plain/trial.json");
  r = pacer(run + " --seed 4 --resume --out '" + dir_ + "/plain'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no checkpoint to continue from"), std::string::npos) << r.err;
  std::filesystem::create_directory(dir_ + "/f");
  std::ofstream(dir_ + "/f/checkpoint") << "not a folder";
  r = pacer(run + " --checkpoint-every 20 --resume --out '" + dir_ + "/f'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not a checkpoint folder"), std::string::npos) << r.err;
  EXPECT_EQ(testing::read_file(dir_ + "/f/checkpoint"), "not a folder");
}

// A full disk while a checkpoint is written: the trial fails with the disk's reason in
// trial.json (LibTorch's file writer used to abort the process from a destructor: exit 134).
TEST_F(CheckpointTest, AFullDiskFailsTheTrialCleanly) {
  const std::string disk = dir_ + "/disk";
  const testing::TmpfsMount mount(disk, "300k");
  if (!mount.mounted()) GTEST_SKIP() << "needs root and mount for a small file system";
  const auto r = pacer(" run -w fmnist_mlp -a nadamw --max-steps 40 --eval-every 20 --threads 1 -q "
                       "--checkpoint-every 10 --out '" + disk + "/r'");
  const std::string trial = testing::read_file(disk + "/r/trial.json");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(trial.find("No space left on device"), std::string::npos) << trial;
  EXPECT_EQ(r.err.find("frame #"), std::string::npos) << r.err;
}

// The study store's re-run of a trial whose worker was killed continues from the trial's
// checkpoint: the same metrics as an uninterrupted study, every eval in the store's new attempt.
TEST_F(CheckpointTest, ATuneTrialReRunAfterItsWorkerDiedResumesFromItsCheckpoint) {
  const std::string tune = " tune -w fmnist_mlp -a nadamw --space '" + std::string(PACER_SOURCE_DIR) +
                           "/spaces/nadamw.json' --studies 1 --trials 1 --max-steps 1500 --eval-every 250 "
                           "--ignore-targets --budget 100000 --threads 1 -q --lease 2 --heartbeat 0.5";
  auto reference = pacer(tune + " --store '" + dir_ + "/ref.db' --out '" + dir_ + "/ref'");
  ASSERT_EQ(reference.code, 0) << reference.err;

  const std::string folder = "/study_1/fmnist_mlp_libtorch/trial_1";
  const pid_t pid = start("'" + std::string(PACER_BINARY) + "'" + tune + " --checkpoint-every 250 --store '" + dir_ +
                              "/cut.db' --out '" + dir_ + "/cut'",
                          dir_ + "/cut.log");
  const auto started = std::chrono::steady_clock::now();
  while (checkpoint_step(dir_ + "/cut" + folder + "/checkpoint") < 500) {
    ASSERT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(120)) << testing::read_file(dir_ + "/cut.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ASSERT_EQ(wait_exit(pid), 128 + SIGKILL) << "the study ended before it could be killed";

  auto resumed = pacer(tune + " --checkpoint-every 250 --store '" + dir_ + "/cut.db' --out '" + dir_ + "/cut'");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto a = read_csv(dir_ + "/ref" + folder + "/eval_measurements.csv");
  const auto b = read_csv(dir_ + "/cut" + folder + "/eval_measurements.csv");
  ASSERT_EQ(a.at("global_step"), b.at("global_step"));
  for (const char* name : {"train/loss", "validation/loss", "validation/accuracy", "test/accuracy"}) {
    for (size_t i = 0; i < a.at(name).size(); ++i) {
      EXPECT_NEAR(std::stod(b.at(name)[i]), std::stod(a.at(name)[i]), 1e-9 * std::abs(std::stod(a.at(name)[i])))
          << name << " at eval " << i;
    }
  }
  EXPECT_EQ(b.at("preemption_count").back(), "1");
  StudyStore store(dir_ + "/cut.db", StudyStoreOptions{false});
  const auto studies = store.studies();
  ASSERT_EQ(studies.size(), 1u);
  const auto trials = store.trials(studies[0].id);
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].attempts, 2);
  EXPECT_EQ(trials[0].status, StoredTrialStatus::complete);
  EXPECT_EQ(store.evals(trials[0].id, 2).size(), a.at("global_step").size());  // earlier evals re-recorded
}

// Adam written by hand, as a plugin author would, with a switch to leave part of its state out
// of state(): what `pacer check` exists to catch.
enum class LeftOut { nothing, step_counter, first_moment, refused_on_load };

class HandAdam : public TrainingAlgorithm {
 public:
  explicit HandAdam(LeftOut left_out) : left_out_(left_out) {}
  std::string name() const override { return "hand_adam"; }
  std::vector<HyperparameterSpec> hyperparameter_specs() const override {
    return {hyperparameter("learning_rate").defaults_to(0.01).in(0.0, 1.0)};
  }
  void init_optimizer_state(const Workload&, Network& network, const Hyperparameters* hparams, uint64_t) override {
    lr_ = hparams ? hparams->get("learning_rate") : 0.01;
    flat_ = FlatParameters(network);
    m_ = at::zeros_like(flat_.values());
    v_ = at::zeros_like(flat_.values());
    step_ = 0;
  }
  UpdateResult update(const Workload& workload, Network& network, const Batch& batch,
                      const StepContext& context) override {
    at::Tensor loss = step_gradients(context, workload, network, batch, {});
    at::NoGradGuard no_grad;
    step_ += 1;
    m_.mul_(0.9).add_(flat_.grads(), 0.1);
    v_.mul_(0.999).addcmul_(flat_.grads(), flat_.grads(), 0.001);
    const at::Tensor m_hat = m_ / (1.0 - std::pow(0.9, step_));
    const at::Tensor v_hat = v_ / (1.0 - std::pow(0.999, step_));
    flat_.values().sub_(lr_ * m_hat / (v_hat.sqrt() + 1e-8));
    return {loss, false};
  }
  NamedTensors state() const override {
    NamedTensors out{{"exp_avg_sq", v_.clone()}};
    if (left_out_ != LeftOut::first_moment) out.emplace_back("exp_avg", m_.clone());
    if (left_out_ != LeftOut::step_counter) out.emplace_back("step", at::full({}, static_cast<double>(step_), at::kDouble));
    return out;
  }
  void load_state(const NamedTensors& state) override {
    for (const auto& [key, value] : state) {
      if (key == "exp_avg") m_.copy_(value);
      else if (key == "exp_avg_sq") v_.copy_(value);
      else if (key == "step" && left_out_ == LeftOut::refused_on_load) throw InputError("hand_adam: unknown entry step");
      else if (key == "step") step_ = static_cast<int64_t>(value.item<double>());
    }
  }

 private:
  LeftOut left_out_;
  double lr_ = 0.01;
  FlatParameters flat_;
  at::Tensor m_, v_;
  int64_t step_ = 0;
};

class StateCheckTest : public testing::CliFixture {
 protected:
  StateCheckReport check(LeftOut left_out) {
    auto workload = create_workload("synthetic_regression");
    StateCheckOptions options;
    options.work_dir = dir_ + "/check_" + std::to_string(static_cast<int>(left_out));
    StateCheckReport r = check_algorithm_state(*workload, [&] { return std::make_unique<HandAdam>(left_out); },
                                               Hyperparameters{}, options);
    RecordProperty("diagnosis", r.diagnosis);  // in --gtest_output=xml: the text a user reads
    return r;
  }
};

TEST_F(StateCheckTest, ACompleteStatePassesAndEveryEntryIsNamed) {
  const StateCheckReport r = check(LeftOut::nothing);
  EXPECT_TRUE(r.passed) << r.diagnosis;
  EXPECT_FALSE(r.first_differing_step);
  EXPECT_TRUE(r.not_restored.empty());
  EXPECT_TRUE(r.drifted.empty());
  EXPECT_EQ(r.entries, (std::vector<std::string>{"exp_avg_sq", "exp_avg", "step"}));
  EXPECT_NE(r.diagnosis.find("holds everything"), std::string::npos) << r.diagnosis;
}

TEST_F(StateCheckTest, ADroppedStepCounterIsCaughtAtTheFirstStepAfterTheRestoreAsAScalar) {
  const StateCheckReport r = check(LeftOut::step_counter);
  EXPECT_FALSE(r.passed);
  ASSERT_TRUE(r.first_differing_step);
  EXPECT_EQ(*r.first_differing_step, 11);  // restored after step 10
  EXPECT_EQ(r.difference, UpdateDifference::scaled) << r.diagnosis;
  // Bias correction at step 1 instead of 11: m_hat / sqrt(v_hat) grows by
  // (1 - 0.9^11) / (1 - 0.9) * sqrt((1 - 0.999) / (1 - 0.999^11)).
  const double expected = (1 - std::pow(0.9, 11)) / 0.1 * std::sqrt(0.001 / (1 - std::pow(0.999, 11)));
  EXPECT_NEAR(r.scale, expected, 1e-3 * expected);
  EXPECT_NE(r.diagnosis.find("step counter"), std::string::npos) << r.diagnosis;
  EXPECT_NE(r.diagnosis.find("From step 11 on"), std::string::npos) << r.diagnosis;
}

TEST_F(StateCheckTest, ADroppedMomentIsCaughtAsAnElementWiseDifference) {
  const StateCheckReport r = check(LeftOut::first_moment);
  EXPECT_FALSE(r.passed);
  ASSERT_TRUE(r.first_differing_step);
  EXPECT_EQ(*r.first_differing_step, 11);
  EXPECT_EQ(r.difference, UpdateDifference::elementwise) << r.diagnosis;
  EXPECT_NE(r.diagnosis.find("a moment"), std::string::npos) << r.diagnosis;
  // exp_avg_sq is saved and restored, but after the diverging steps it differs too.
  EXPECT_NE(std::find(r.drifted.begin(), r.drifted.end(), "exp_avg_sq"), r.drifted.end()) << r.diagnosis;
}

TEST_F(StateCheckTest, ALoadStateThatRefusesItsOwnEntryFailsTheCheckNamingIt) {
  const StateCheckReport r = check(LeftOut::refused_on_load);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.resume_error.find("unknown entry step"), std::string::npos) << r.diagnosis;
  ASSERT_EQ(r.not_restored.size(), 1u) << r.diagnosis;
  EXPECT_NE(r.not_restored[0].find("load_state threw"), std::string::npos) << r.not_restored[0];
  EXPECT_NE(r.diagnosis.find("The resumed run failed"), std::string::npos) << r.diagnosis;
}

// Every built-in's state() is complete: each resumes exactly where it was.
TEST_F(StateCheckTest, EveryBuiltInAlgorithmPasses) {
  auto workload = create_workload("synthetic_regression");
  for (const auto& name : algorithm_names()) {
    StateCheckOptions options;
    options.steps = 8;
    options.restore_at = 4;
    options.work_dir = dir_ + "/builtin_" + name;
    const StateCheckReport r =
        check_algorithm_state(*workload, [&] { return create_algorithm(name); }, Hyperparameters{}, options);
    EXPECT_TRUE(r.passed) << name << ": " << r.diagnosis;
  }
}

TEST_F(StateCheckTest, TheCommandPassesABuiltInAndRefusesBadInputWithExit2) {
  auto r = pacer("check -a adamw --steps 6");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("passed:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("state():   "), std::string::npos) << r.out;
  r = pacer("check -a adamw --steps 6 --restore-at 6");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--restore-at"), std::string::npos) << r.err;
  r = pacer("check -a no_such_algorithm");
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace pacer
