#pragma once
// Writes one trial's files in the AlgoPerf layout (hparams.json, meta_data_0.json,
// eval_measurements.csv) plus Pacer's trial.json. Every write is atomic (temp file + rename);
// the CSV is rewritten whole at each eval, so a killed run leaves the evals logged so far.
//
//   pacer::TrialWriter writer("runs/demo");
//   writer.write_hparams(resolved);
//   writer.append_eval(record);
//   writer.write_result(result);
#include <string>
#include <vector>

#include "core/hyperparameters.h"
#include "train/trial_result.h"

namespace pacer {

struct TrialMetadata {
  WorkloadSpec workload;
  std::string algorithm;
  uint64_t seed = 0;
  std::string device;
  int threads = 0;
  int64_t batch_size = 0;
  double time_budget = 0.0;
  std::string eval_schedule;  // "every 2 s" or "every 200 steps"
  bool self_tuning = false;
};

class TrialWriter {
 public:
  explicit TrialWriter(std::string out_dir);
  void write_hparams(const Hyperparameters& hparams) const;
  void write_metadata(const TrialMetadata& meta) const;
  void append_eval(const EvalRecord& record);
  void write_result(const TrialResult& result) const;
  const std::string& out_dir() const { return out_dir_; }

  // The reference's columns, sorted alphabetically, for the given metric names.
  static std::vector<std::string> csv_columns(const Metrics& metrics);

 private:
  std::string out_dir_;
  std::vector<std::string> columns_;
  std::string csv_;
};

}  // namespace pacer
