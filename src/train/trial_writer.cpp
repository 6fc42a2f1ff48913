#include "train/trial_writer.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/error.h"
#include "core/output_folder.h"

namespace pacer {
namespace {

std::string format_number(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);  // shortest round-trip form
  return std::string(buffer, result.ptr);
}

// Pacer's own files in a result folder (what --overwrite removes).
bool is_result_file(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name == "trial.json" || name == "hparams.json" || name == "eval_measurements.csv" || name == "checkpoint" ||
         name == "checkpoint_best" || (name.rfind("meta_data_", 0) == 0 && path.extension() == ".json");
}

// --resume where it would replace a result instead of continuing one.
void check_resumable(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path checkpoint = fs::path(dir) / "checkpoint";
  if (fs::exists(fs::symlink_status(checkpoint, ec)) && !fs::is_directory(checkpoint, ec)) {
    throw InputError("--resume: " + checkpoint.string() + " is not a checkpoint folder; nothing was changed");
  }
  const fs::path trial = fs::path(dir) / "trial.json";
  if (fs::exists(trial, ec)) {
    std::string reason = "unknown";
    try {
      const auto j = nlohmann::json::parse(read_text_file(trial.string()), nullptr, false);
      if (j.is_object() && j.contains("stop_reason") && j["stop_reason"].is_string()) reason = j["stop_reason"];
    } catch (const std::exception&) {
    }
    if (reason != "interrupted") {
      throw InputError("--resume: " + dir + " holds a finished run (stop reason: " + reason +
                       "); there is nothing to resume. Give --overwrite to run it again, or another --out");
    }
  }
  if (fs::exists(checkpoint / "state.json", ec)) return;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (is_result_file(entry.path())) {
      throw InputError("--resume: " + dir + " holds results of an earlier run but no checkpoint to continue from (" +
                       entry.path().filename().string() + "); give --overwrite to replace them, or another --out");
    }
  }
}

}  // namespace

FolderLock prepare_result_folder(const std::string& dir, ExistingResults existing) {
  namespace fs = std::filesystem;
  std::error_code ec;
  prepare_output_folder(dir, "--out");  // a folder, created, writable: before any work
  FolderLock lock(dir, "--out");  // first: the checks below must not race another writer
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename() != FolderLock::kFileName) empty = false;
  }
  if (!empty && existing == ExistingResults::refuse) {
    throw InputError("--out " + dir + ": the folder already holds files (an earlier result?); give --overwrite to " +
                     "replace Pacer's results there, or --resume to continue a checkpointed run");
  }
  if (existing == ExistingResults::resume) check_resumable(dir);
  if (existing == ExistingResults::overwrite) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (is_result_file(entry.path())) fs::remove_all(entry.path(), ec);
    }
  }
  // A killed write's leftovers (the result files, a checkpoint's state or tensors).
  for (const char* sub : {"", "/checkpoint", "/checkpoint_best"}) remove_stale_temporary_files(dir + sub);
  return lock;
}

TrialWriter::TrialWriter(std::string out_dir) : out_dir_(std::move(out_dir)) { create_directories(out_dir_); }

void TrialWriter::write_hparams(const Hyperparameters& hparams) const {
  write_file_atomic(out_dir_ + "/hparams.json", hparams.to_json(2) + "\n");
}

void TrialWriter::write_start() {
  if (!start_) return;
  const TrialStart start = std::move(*start_);
  start_.reset();
  write_hparams(start.hparams ? *start.hparams : Hyperparameters{});
  write_metadata(start);
  // Resumed: the rows of the evals before the checkpoint, as they were (times included).
  for (const auto& record : start.earlier_evals) append_eval(record);
}

void TrialWriter::on_eval(const EvalReport& report) {
  write_start();
  append_eval(report.record);
}

void TrialWriter::on_finish(const TrialResult& result) {
  write_start();
  write_result(result);
}

void TrialWriter::write_metadata(const TrialStart& m) const {
  nlohmann::ordered_json j;
  j["workload.name"] = m.workload.name;
  j["workload.base_workload"] = m.workload.base_workload;
  j["workload.target_metric_name"] = m.workload.target_metric;
  j["workload.target_metric_direction"] = m.workload.higher_is_better ? "max" : "min";
  j["workload.validation_target_value"] = m.workload.validation_target;
  j["workload.test_target_value"] = m.workload.test_target;
  j["workload.max_allowed_runtime_sec"] = m.workload.time_budget;
  j["workload.step_hint"] = m.workload.step_hint;
  j["workload.eval_period_time_sec"] = m.workload.eval_period_sec;
  j["algorithm"] = m.algorithm;
  j["ruleset"] = m.hparams ? "external" : "self";
  j["rng_seed"] = m.seed;
  j["batch_size"] = m.batch_size;
  j["time_budget"] = m.time_budget;
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
