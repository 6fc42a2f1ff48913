#include "train/checkpoint.h"

#include <c10/core/GradMode.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/checksum.h"
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

EvalRecord eval_from_json(const nlohmann::ordered_json& j) {
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

// Format 2 adds the checksums, the trial's definition and the gradient norms since the last eval.
constexpr int kFormat = 2;

// Where two JSON values differ, leaf by leaf: "spec.max_steps (40 in the checkpoint, 60 now)".
std::string shown(const nlohmann::json& v) {
  const std::string text = v.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

void differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& at,
                 std::vector<std::string>& out) {
  const auto name = [&](const std::string& key) { return at.empty() ? key : at + "." + key; };
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      // A definition leaves out what is at its default (the wall clock, all eval splits).
      if (!b.contains(key)) out.push_back(name(key) + " (" + shown(value) + " in the checkpoint, the default now)");
      else differences(value, b.at(key), name(key), out);
    }
    for (const auto& [key, value] : b.items()) {
      if (!a.contains(key)) out.push_back(name(key) + " (the default in the checkpoint, " + shown(value) + " now)");
    }
  } else if (a != b) {
    out.push_back((at.empty() ? "the definition" : at) + " (" + shown(a) + " in the checkpoint, " + shown(b) + " now)");
  }
}

void require(bool ok, const std::string& file, const std::string& what) {
  if (!ok) throw InputError("checkpoint: " + file + ": impossible value: " + what + "; the checkpoint was edited or damaged");
}

bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0.0; }

// Values no run can have written.
void check_values(const CheckpointState& s, const std::string& file) {
  const RunnerState& r = s.runner;
  require(r.step >= 0, file, "step " + std::to_string(r.step));
  require(s.batches_consumed >= 0, file, "batches_consumed " + std::to_string(s.batches_consumed));
  require(s.preemption_count >= 0, file, "preemption_count " + std::to_string(s.preemption_count));
  require(finite_non_negative(r.accumulated_submission_time) && finite_non_negative(r.accumulated_eval_time) &&
              finite_non_negative(r.accumulated_logging_time) && finite_non_negative(s.total_duration),
          file, "a negative or non-finite accumulated time");
  int64_t previous = 0;
  for (const auto& e : r.evals) {
    require(e.step >= previous && e.step <= r.step, file,
            "an eval at step " + std::to_string(e.step) + " (out of order or after the checkpoint's step " +
                std::to_string(r.step) + ")");
    require(finite_non_negative(e.accumulated_submission_time) && finite_non_negative(e.accumulated_eval_time) &&
                finite_non_negative(e.accumulated_logging_time) && finite_non_negative(e.total_duration) &&
                e.accumulated_submission_time <= r.accumulated_submission_time,
            file, "an eval's times (negative, non-finite or after the checkpoint's)");
    require(e.preemption_count >= 0 && e.preemption_count <= s.preemption_count, file,
            "an eval's preemption_count " + std::to_string(e.preemption_count));
    previous = e.step;
  }
}

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
  const std::string tensors = tensor_file(s.runner.step);
  // Serialized in memory, then written by write_file_atomic: LibTorch's own file writer ends a
  // failed write (a full disk) by throwing from a destructor, which aborts the process.
  std::string bytes;
  archive.save_to([&bytes](const void* data, size_t n) -> size_t {
    bytes.append(static_cast<const char*>(data), n);
    return n;
  });
  write_file_atomic((fs::path(dir) / tensors).string(), bytes);

  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["workload"] = s.workload;
  j["algorithm"] = s.algorithm;
  j["seed"] = s.seed;
  j["batch_size"] = s.batch_size;
  j["step"] = s.runner.step;
  j["batches_consumed"] = s.batches_consumed;
  j["accumulated_submission_time"] = s.runner.accumulated_submission_time;
  j["accumulated_eval_time"] = s.runner.accumulated_eval_time;
  j["accumulated_logging_time"] = s.runner.accumulated_logging_time;
  j["total_duration"] = s.total_duration;
  j["validation_target_reached"] = s.runner.validation_target_reached;
  j["test_target_reached"] = s.runner.test_target_reached;
  j["preemption_count"] = s.preemption_count;
  j["tensors"] = tensors;
  j["tensors_crc32"] = crc32_of_text(bytes);
  j["parameters"] = parameters.size();
  j["algorithm_state"] = names;
  j["grad_norms_since_eval"] = s.grad_norms_since_eval;
  j["definition"] = s.definition.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(s.definition);
  auto& evals = j["evals"] = nlohmann::ordered_json::array();
  for (const auto& e : s.runner.evals) evals.push_back(eval_to_json(e));
  // Last: the checksum of everything above, so an edit of any value is found on resume.
  j["state_crc32"] = crc32_of_text(j.dump());
  write_file_atomic((fs::path(dir) / "state.json").string(), j.dump() + "\n");
  // The older tensor files are no longer named by state.json.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name != tensors && name.rfind("tensors_", 0) == 0 && name.find(".tmp") == std::string::npos) {
      fs::remove(entry.path());
    }
  }
  remove_stale_temporary_files(dir);  // a killed writer's
}

namespace {

// What state.json holds, read and verified (its checksum, its format), before any tensor is touched.
struct StateFile {
  std::string file;  // state.json's path, for messages
  CheckpointState state;
  std::vector<std::string> algorithm_names;
  std::string tensors, tensors_crc32;
  size_t parameter_count = 0;
};

StateFile read_state_file(const fs::path& state_path) {
  std::ifstream in(state_path);
  if (!in) throw InputError("checkpoint: " + state_path.string() + " is missing");
  std::stringstream text;
  text << in.rdbuf();
  check_json_input(text.str(), "checkpoint: " + state_path.string());
  auto j = nlohmann::ordered_json::parse(text.str(), nullptr, false);
  if (!j.is_object()) throw InputError("checkpoint: " + state_path.string() + " is not valid JSON");
  StateFile f;
  f.file = state_path.string();
  CheckpointState& s = f.state;
  const std::string& file = f.file;
  try {
    if (!j.contains("format")) {
      s.unverified = true;  // an earlier Pacer's: no checksums to check
    } else {
      if (j.at("format").get<int>() != kFormat) {
        throw InputError("checkpoint: " + file + ": format " + j.at("format").dump() + " is not this Pacer's (" +
                         std::to_string(kFormat) + "); resume it with the Pacer that wrote it");
      }
      if (!j.contains("state_crc32") || !j["state_crc32"].is_string()) {
        throw InputError("checkpoint: " + file + " was edited or damaged (its checksum is missing); it cannot be "
                         "trusted: start the run again with --overwrite");
      }
      const std::string recorded = j.at("state_crc32").get<std::string>();
      j.erase("state_crc32");
      if (crc32_of_text(j.dump()) != recorded) {
        throw InputError("checkpoint: " + file + " was edited or damaged (its checksum differs); it cannot be trusted: "
                         "start the run again with --overwrite");
      }
      f.tensors_crc32 = j.at("tensors_crc32").get<std::string>();
      // An infinite norm is written as null (as nlohmann writes non-finite numbers).
      for (const auto& v : j.at("grad_norms_since_eval")) s.grad_norms_since_eval.push_back(v.is_null() ? INFINITY : v.get<double>());
      if (!j.at("definition").is_null()) s.definition = j.at("definition").dump();
    }
    s.workload = j.at("workload").get<std::string>();
    s.algorithm = j.at("algorithm").get<std::string>();
    s.seed = j.at("seed").get<uint64_t>();
    s.batch_size = j.at("batch_size").get<int64_t>();
    s.runner.step = j.at("step").get<int64_t>();
    s.batches_consumed = j.at("batches_consumed").get<int64_t>();
    s.runner.accumulated_submission_time = j.at("accumulated_submission_time").get<double>();
    s.runner.accumulated_eval_time = j.at("accumulated_eval_time").get<double>();
    s.runner.accumulated_logging_time = j.at("accumulated_logging_time").get<double>();
    s.total_duration = j.at("total_duration").get<double>();
    // Checkpoints written before 2026-11-27 name the targets AlgoPerf's way ("goal").
    const auto reached = [&j](const std::string& split) {
      const std::string key = split + "_target_reached";
      return (j.contains(key) ? j.at(key) : j.at(split + "_goal_reached")).get<bool>();
    };
    s.runner.validation_target_reached = reached("validation");
    s.runner.test_target_reached = reached("test");
    s.preemption_count = j.at("preemption_count").get<int64_t>();
    f.tensors = j.at("tensors").get<std::string>();
    f.parameter_count = j.at("parameters").get<size_t>();
    f.algorithm_names = j.at("algorithm_state").get<std::vector<std::string>>();
    for (const auto& e : j.at("evals")) s.runner.evals.push_back(eval_from_json(e));
  } catch (const nlohmann::json::exception& e) {
    throw InputError("checkpoint: " + state_path.string() + ": " + e.what());
  }
  check_values(s, file);
  return f;
}

// The checkpoint is this trial's: the same workload, algorithm, seed and batch size, and (when
// both record it) the same definition, leaf by leaf.
void check_identity(const StateFile& f, const CheckpointState& expected) {
  const CheckpointState& s = f.state;
  if (s.workload != expected.workload || s.algorithm != expected.algorithm || s.seed != expected.seed ||
      s.batch_size != expected.batch_size) {
    throw InputError("checkpoint: " + f.file + " belongs to " + s.workload + " x " + s.algorithm + ", seed " +
                     std::to_string(s.seed) + ", batch size " + std::to_string(s.batch_size) +
                     ", not to this trial (" + expected.workload + " x " + expected.algorithm + ", seed " +
                     std::to_string(expected.seed) + ", batch size " + std::to_string(expected.batch_size) + ")");
  }
  if (s.unverified || expected.definition.empty()) return;
  std::vector<std::string> changed;
  const auto saved = nlohmann::json::parse(s.definition.empty() ? "null" : s.definition);
  auto now = nlohmann::json::parse(expected.definition);
  // A checkpoint from before the thread count was part of a cpu-clock definition: not compared.
  if (now.is_object() && saved.is_object() && !saved.contains("threads")) now.erase("threads");
  differences(saved, now, "", changed);
  if (!changed.empty()) {
    std::string names_changed;
    for (size_t i = 0; i < changed.size(); ++i) names_changed += (i ? ", " : "") + changed[i];
    throw InputError("checkpoint: " + f.file + " belongs to a trial defined otherwise: " + names_changed +
                     "; resume with the options of the run that wrote it");
  }
}

// The tensor file state.json names: inside the checkpoint folder, present, and (verified
// checkpoints) with the checksum state.json recorded.
fs::path checked_tensor_file(const std::string& dir, const StateFile& f) {
  const fs::path tensor_path = fs::path(dir) / f.tensors;
  if (f.tensors.empty() || f.tensors.find('/') != std::string::npos || f.tensors == "." || f.tensors == "..") {
    throw InputError("checkpoint: " + f.file + ": 'tensors' must name a file in the checkpoint folder");
  }
  if (!fs::is_regular_file(tensor_path)) throw InputError("checkpoint: " + tensor_path.string() + " is missing");
  if (!f.state.unverified && crc32_of_file(tensor_path.string()) != f.tensors_crc32) {
    throw InputError("checkpoint: " + tensor_path.string() + " is damaged (its checksum differs from the one "
                     "state.json recorded); start the run again with --overwrite");
  }
  return tensor_path;
}

// The parameters, buffers and algorithm state, copied into the network and handed to the algorithm.
void restore_tensors(const fs::path& tensor_path, const StateFile& f, Network& network, TrainingAlgorithm& algorithm) {
  const std::vector<std::string>& names = f.algorithm_names;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(tensor_path.string());
    {  // the algorithm state state.json lists is what the tensor file holds, no more, no less
      std::vector<std::string> held;
      for (const auto& key : archive.keys()) {
        if (key.rfind("algorithm/", 0) == 0) held.push_back(key.substr(10));
      }
      std::vector<std::string> listed = names;
      std::sort(held.begin(), held.end());
      std::sort(listed.begin(), listed.end());
      if (held != listed) {
        throw InputError("checkpoint: " + f.file + ": impossible value: the algorithm state it lists (" +
                         std::to_string(names.size()) + " tensors) is not what " + f.tensors + " holds (" +
                         std::to_string(held.size()) + "); the checkpoint was edited or damaged");
      }
    }
    at::NoGradGuard no_grad;
    auto parameters = network.parameters();
    if (parameters.size() != f.parameter_count) throw Error("the network has a different number of parameters");
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
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));  // c10's message is followed by a stack trace
    throw InputError("checkpoint: " + tensor_path.string() + " cannot be restored: " + why);
  }
}

}  // namespace

CheckpointState load_checkpoint(const std::string& dir, Network& network, TrainingAlgorithm& algorithm,
                                const CheckpointState& expected) {
  const StateFile f = read_state_file(fs::path(dir) / "state.json");
  check_identity(f, expected);
  restore_tensors(checked_tensor_file(dir, f), f, network, algorithm);
  return f.state;
}

}  // namespace pacer
