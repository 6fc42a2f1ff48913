#include "train/checkpoint.h"

#include <c10/core/GradMode.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_input.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

nlohmann::ordered_json eval_to_json(const EvalRecord& e) {
  return {{"step", e.step},
          {"accumulated_submission_time", e.accumulated_submission_time},
          {"accumulated_eval_time", e.accumulated_eval_time},
          {"accumulated_logging_time", e.accumulated_logging_time},
          {"total_duration", e.total_duration},
          {"preemption_count", e.preemption_count},
          {"metrics", e.metrics}};
}

EvalRecord eval_from_json(const nlohmann::json& j) {
  EvalRecord e;
  e.step = j.at("step").get<int64_t>();
  e.accumulated_submission_time = j.at("accumulated_submission_time").get<double>();
  e.accumulated_eval_time = j.at("accumulated_eval_time").get<double>();
  e.accumulated_logging_time = j.at("accumulated_logging_time").get<double>();
  e.total_duration = j.at("total_duration").get<double>();
  e.preemption_count = j.at("preemption_count").get<int64_t>();
  // Non-finite metrics (a diverged eval) are written as null by nlohmann.
  for (const auto& [key, value] : j.at("metrics").items()) e.metrics[key] = value.is_null() ? NAN : value.get<double>();
  return e;
}

std::string tensor_file(int64_t step) { return "tensors_" + std::to_string(step) + ".pt"; }

}  // namespace

bool checkpoint_exists(const std::string& dir) { return fs::exists(fs::path(dir) / "state.json"); }

void save_checkpoint(const std::string& dir, const CheckpointState& s, Network& network,
                     const TrainingAlgorithm& algorithm) {
  fs::create_directories(dir);
  torch::serialize::OutputArchive archive;
  const auto parameters = network.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) archive.write("parameter/" + std::to_string(i), parameters[i].detach());
  for (const auto& b : network.named_buffers()) archive.write("buffer/" + b.key(), b.value());
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const auto& [name, tensor] : algorithm.state()) {
    archive.write("algorithm/" + name, tensor);
    names.push_back(name);
  }
  const std::string tensors = tensor_file(s.step);
  const fs::path tmp = fs::path(dir) / (tensors + ".tmp");
  archive.save_to(tmp.string());
  fs::rename(tmp, fs::path(dir) / tensors);

  nlohmann::ordered_json j;
  j["workload"] = s.workload;
  j["algorithm"] = s.algorithm;
  j["seed"] = s.seed;
  j["batch_size"] = s.batch_size;
  j["step"] = s.step;
  j["batches_consumed"] = s.batches_consumed;
  j["accumulated_submission_time"] = s.accumulated_submission_time;
  j["accumulated_eval_time"] = s.accumulated_eval_time;
  j["accumulated_logging_time"] = s.accumulated_logging_time;
  j["total_duration"] = s.total_duration;
  j["validation_goal_reached"] = s.validation_goal_reached;
  j["test_goal_reached"] = s.test_goal_reached;
  j["preemption_count"] = s.preemption_count;
  j["tensors"] = tensors;
  j["parameters"] = parameters.size();
  j["algorithm_state"] = names;
  auto& evals = j["evals"] = nlohmann::ordered_json::array();
  for (const auto& e : s.evals) evals.push_back(eval_to_json(e));
  write_file_atomic((fs::path(dir) / "state.json").string(), j.dump() + "\n");
  // The older tensor files are no longer named by state.json.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name != tensors && name.rfind("tensors_", 0) == 0) fs::remove(entry.path());
  }
}

CheckpointState load_checkpoint(const std::string& dir, Network& network, TrainingAlgorithm& algorithm,
                                const CheckpointState& expected) {
  const fs::path state_path = fs::path(dir) / "state.json";
  std::ifstream in(state_path);
  if (!in) throw InputError("checkpoint: " + state_path.string() + " is missing");
  std::stringstream text;
  text << in.rdbuf();
  check_json_input(text.str(), "checkpoint: " + state_path.string());
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (!j.is_object()) throw InputError("checkpoint: " + state_path.string() + " is not valid JSON");
  CheckpointState s;
  std::vector<std::string> names;
  std::string tensors;
  size_t parameter_count = 0;
  try {
    s.workload = j.at("workload").get<std::string>();
    s.algorithm = j.at("algorithm").get<std::string>();
    s.seed = j.at("seed").get<uint64_t>();
    s.batch_size = j.at("batch_size").get<int64_t>();
    s.step = j.at("step").get<int64_t>();
    s.batches_consumed = j.at("batches_consumed").get<int64_t>();
    s.accumulated_submission_time = j.at("accumulated_submission_time").get<double>();
    s.accumulated_eval_time = j.at("accumulated_eval_time").get<double>();
    s.accumulated_logging_time = j.at("accumulated_logging_time").get<double>();
    s.total_duration = j.at("total_duration").get<double>();
    s.validation_goal_reached = j.at("validation_goal_reached").get<bool>();
    s.test_goal_reached = j.at("test_goal_reached").get<bool>();
    s.preemption_count = j.at("preemption_count").get<int64_t>();
    tensors = j.at("tensors").get<std::string>();
    parameter_count = j.at("parameters").get<size_t>();
    names = j.at("algorithm_state").get<std::vector<std::string>>();
    for (const auto& e : j.at("evals")) s.evals.push_back(eval_from_json(e));
  } catch (const nlohmann::json::exception& e) {
    throw InputError("checkpoint: " + state_path.string() + ": " + e.what());
  }
  if (s.workload != expected.workload || s.algorithm != expected.algorithm || s.seed != expected.seed ||
      s.batch_size != expected.batch_size) {
    throw InputError("checkpoint: " + state_path.string() + " belongs to " + s.workload + " x " + s.algorithm +
                     ", seed " + std::to_string(s.seed) + ", batch size " + std::to_string(s.batch_size) +
                     ", not to this trial (" + expected.workload + " x " + expected.algorithm + ", seed " +
                     std::to_string(expected.seed) + ", batch size " + std::to_string(expected.batch_size) + ")");
  }
  const fs::path tensor_path = fs::path(dir) / tensors;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(tensor_path.string());
    at::NoGradGuard no_grad;
    auto parameters = network.parameters();
    if (parameters.size() != parameter_count) throw Error("the network has a different number of parameters");
    // Copy into the existing tensors: flattened parameters must stay views of their buffers.
    for (size_t i = 0; i < parameters.size(); ++i) {
      at::Tensor saved;
      archive.read("parameter/" + std::to_string(i), saved);
      parameters[i].detach().copy_(saved);
    }
    for (auto& b : network.named_buffers()) {
      at::Tensor saved;
      archive.read("buffer/" + b.key(), saved, /*is_buffer=*/true);
      b.value().copy_(saved);
    }
    NamedTensors state;
    for (const auto& name : names) {
      at::Tensor saved;
      archive.read("algorithm/" + name, saved);
      state.emplace_back(name, saved);
    }
    algorithm.load_state(state);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError("checkpoint: " + tensor_path.string() + " cannot be restored: " + e.what());
  }
  return s;
}

}  // namespace pacer
