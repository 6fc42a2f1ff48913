#pragma once
// Writes one trial's files in the AlgoPerf layout (hparams.json, meta_data_0.json,
// eval_measurements.csv) plus Pacer's trial.json. Every write is atomic (temp file + rename);
// the CSV is rewritten whole at each eval, so a killed run leaves the evals logged so far. As a
// trial observer it writes the first two once the trial has taken its first step (at the first
// eval, right after step 1, or at the end), so an input error the first step reveals (an
// algorithm that takes its gradient around the framework's, in data-parallel gradient mode)
// refuses the run before anything is written; then a CSV row per eval and trial.json at the end.
//
//   options.observers.push_back(std::make_shared<pacer::TrialWriter>("runs/demo"));
//   // or by hand:
//   pacer::TrialWriter writer("runs/demo");
//   writer.write_hparams(resolved);
//   writer.append_eval(record);
//   writer.write_result(result);
#include <optional>
#include <string>
#include <vector>

#include "core/folder_lock.h"
#include "core/hyperparameters.h"
#include "train/trial_observer.h"
#include "catalog/trial_result.h"

namespace pacer {

// What to do with a result folder that already holds files.
enum class ExistingResults { refuse, overwrite, resume };

// Before any work: `dir` is created if missing and must be a writable folder, and is locked for
// as long as the returned lock lives (a second command writing it is refused). One that already
// holds files is refused (InputError naming it and the two flags), as AlgoPerf's runner does,
// unless `overwrite` (Pacer's own result files and checkpoints in it are removed first; nothing
// else is touched) or `resume`: a checkpointed run that has not finished continues there. A
// resume is refused where it would replace a result: a finished run (trial.json says how it
// ended, not interrupted), earlier results without a checkpoint, a `checkpoint` that is not a
// folder.
FolderLock prepare_result_folder(const std::string& dir, ExistingResults existing);

class TrialWriter : public TrialObserver {
 public:
  explicit TrialWriter(std::string out_dir);

  void on_start(const TrialStart& start) override { start_ = start; }
  void on_eval(const EvalReport& report) override;
  void on_finish(const TrialResult& result) override;

  void write_hparams(const Hyperparameters& hparams) const;
  void write_metadata(const TrialStart& meta) const;  // meta_data_0.json
  void append_eval(const EvalRecord& record);
  void write_result(const TrialResult& result) const;
  const std::string& out_dir() const { return out_dir_; }

  // The reference's columns, sorted alphabetically, for the given metric names.
  static std::vector<std::string> csv_columns(const Metrics& metrics);

 private:
  void write_start();  // hparams.json, meta_data_<n>.json and a resumed run's earlier rows, once

  std::string out_dir_;
  std::optional<TrialStart> start_;  // not written yet
  std::vector<std::string> columns_;
  std::string csv_;
};

}  // namespace pacer
