#include "train/trial_writer.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/error.h"

namespace pacer {
namespace {

std::string format_number(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);  // shortest round-trip form
  return std::string(buffer, result.ptr);
}

}  // namespace

void prepare_result_folder(const std::string& dir, ExistingResults existing) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw InputError("--out " + dir + ": is a file, not a folder");
  }
  if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec) && existing == ExistingResults::refuse) {
    throw InputError("--out " + dir + ": the folder already holds files (an earlier result?); give --overwrite to " +
                     "replace Pacer's results there, or --resume to continue a checkpointed run");
  }
  if (existing == ExistingResults::overwrite && fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      const bool ours = name == "trial.json" || name == "hparams.json" || name == "eval_measurements.csv" ||
                        name == "checkpoint" || name == "checkpoint_best" ||
                        (name.rfind("meta_data_", 0) == 0 && entry.path().extension() == ".json");
      if (ours) fs::remove_all(entry.path(), ec);
    }
  }
  try {
    create_directories(dir);
    write_file_atomic(dir + "/.pacer_write_check", "");  // unwritable: fail now, not after training
  } catch (const std::exception& e) {
    throw InputError("--out " + dir + ": cannot write there: " + e.what());
  }
  fs::remove(dir + "/.pacer_write_check", ec);
}

TrialWriter::TrialWriter(std::string out_dir) : out_dir_(std::move(out_dir)) { create_directories(out_dir_); }

void TrialWriter::write_hparams(const Hyperparameters& hparams) const {
  write_file_atomic(out_dir_ + "/hparams.json", hparams.to_json(2) + "\n");
}

void TrialWriter::on_start(const TrialStart& start) {
  write_hparams(start.hparams ? *start.hparams : Hyperparameters{});
  write_metadata(start);
  // Resumed: the rows of the evals before the checkpoint, as they were (times included).
  for (const auto& record : start.earlier_evals) append_eval(record);
}

void TrialWriter::write_metadata(const TrialStart& m) const {
  nlohmann::ordered_json j;
  j["workload.name"] = m.workload.name;
  j["workload.base_workload"] = m.workload.base_workload;
  j["workload.target_metric_name"] = m.workload.target_metric;
  j["workload.target_metric_direction"] = m.workload.higher_is_better ? "max" : "min";
  j["workload.validation_target_value"] = m.workload.validation_target;
  j["workload.test_target_value"] = m.workload.test_target;
  j["workload.max_allowed_runtime_sec"] = m.workload.max_runtime_sec;
  j["workload.step_hint"] = m.workload.step_hint;
  j["workload.eval_period_time_sec"] = m.workload.eval_period_sec;
  j["algorithm"] = m.algorithm;
  j["ruleset"] = m.hparams ? "external" : "self";
  j["rng_seed"] = m.seed;
  j["batch_size"] = m.batch_size;
  j["time_budget_sec"] = m.time_budget;
  j["eval_schedule"] = m.eval_cadence;
  j["device"] = m.device;
  j["num_threads"] = m.threads;
  // Pacer's own key: what `score` (accumulated submission time) was measured by. Logs without it
  // (the reference's) are wall clock.
  j["submission_clock"] = m.clock;
  j["hostname"] = host_name();
  j["cpu_model_name"] = cpu_model();
  j["framework"] = "libtorch";
  j["git_commit_hash"] = git_commit();
  // AlgoPerf names the file meta_data_<n>.json, n counting restarts of the same trial.
  write_file_atomic(out_dir_ + "/meta_data_" + std::to_string(m.preemption_count) + ".json", j.dump(2) + "\n");
}

std::vector<std::string> TrialWriter::csv_columns(const Metrics& metrics) {
  std::vector<std::string> columns = {"accumulated_eval_time", "accumulated_logging_time",
                                      "accumulated_submission_time", "global_step", "preemption_count", "score",
                                      "total_duration"};
  for (const auto& [name, value] : metrics) {
    if (name == "train/num_examples") continue;  // the reference logs num_examples for validation and test only
    columns.push_back(name);
  }
  std::sort(columns.begin(), columns.end());
  return columns;
}

void TrialWriter::append_eval(const EvalRecord& r) {
  if (columns_.empty()) {
    columns_ = csv_columns(r.metrics);
    for (size_t i = 0; i < columns_.size(); ++i) csv_ += (i ? "," : "") + columns_[i];
    csv_ += "\n";
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    const std::string& c = columns_[i];
    std::string cell;
    if (c == "accumulated_eval_time") cell = format_number(r.accumulated_eval_time);
    else if (c == "accumulated_logging_time") cell = format_number(r.accumulated_logging_time);
    else if (c == "accumulated_submission_time" || c == "score") cell = format_number(r.accumulated_submission_time);
    else if (c == "global_step") cell = std::to_string(r.step);
    else if (c == "preemption_count") cell = std::to_string(r.preemption_count);
    else if (c == "total_duration") cell = format_number(r.total_duration);
    else {
      auto it = r.metrics.find(c);
      cell = it == r.metrics.end() ? "" : format_number(it->second);
    }
    csv_ += (i ? "," : "") + cell;
  }
  csv_ += "\n";
  write_file_atomic(out_dir_ + "/eval_measurements.csv", csv_);
}

void TrialWriter::write_result(const TrialResult& result) const {
  write_file_atomic(out_dir_ + "/trial.json", result.to_json() + "\n");
}

}  // namespace pacer
