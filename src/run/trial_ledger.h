#pragma once
// Where a running trial's records go and its racing bounds come from, in one shape: the study
// store itself for a trial the worker runs in its own process (StoreLedger, here), or the worker
// over a channel for a contained trial, whose process may not write the store (run/trial_channel.h).
// The trial's side of the worker (run_claimed_trial in tuning_worker.cpp) is then the same for both.
//
//   pacer::StoreLedger ledger(store, store_path, trial, study, owner, options);
//   ledger.record_eval(0, eval);   // LeaseLost once another worker took the trial over
//   ledger.finish(result);         // the outcome, once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/eval_record.h"
#include "catalog/trial_spec.h"
#include "core/trial_outcome.h"
#include "store/study_store.h"
#include "tune/race_bounds.h"
#include "tune/worker_options.h"

namespace pacer {

class TrialLedger {
 public:
  virtual ~TrialLedger() = default;
  // Renews the trial's lease: false once it is no longer this worker's. Called from the heartbeat
  // thread alone; throws when the store cannot be reached now (the next beat tries again).
  virtual bool heartbeat() = 0;
  // The attempt's eval_index-th eval (0-based). LeaseLost: the trial is no longer this worker's.
  virtual void record_eval(int64_t eval_index, const EvalRecord& eval) = 0;
  virtual void finish(const TrialOutcome& outcome) = 0;  // LeaseLost as above
  // Gives the trial back as interrupted, to be re-run (no-op when it is not ours).
  virtual void release(const std::string& message) = 0;
  // Racing's reads (run/racing.h): the smallest eval index at which a finished trial of the study
  // reached its target, and the 4x cut-off's bounds (tune/race_bounds.h).
  virtual std::optional<int64_t> best_eval_index_to_target() = 0;
  // The fewest steps at which a finished, not diverged trial of the study had an eval strictly
  // better than `goal` (a scaling study's result, scale/steps_to_result.h).
  virtual std::optional<int64_t> best_steps_to_goal(const TrainingGoal& goal) = 0;
  virtual FastestTimes fastest() = 0;
};

// The study store's ledger for one claimed trial. The heartbeat has a connection of its own (a
// store connection is not shared across threads), opened at the first beat and again after a
// failure: a store that cannot be reached now (a PostgreSQL restart) must not end the worker.
class StoreLedger : public TrialLedger {
 public:
  StoreLedger(StudyStore& store, std::string store_path, const TrialRecord& trial, const StudyRecord& study,
              std::string owner, const WorkerOptions& options);
  ~StoreLedger() override;

  bool heartbeat() override;
  void record_eval(int64_t eval_index, const EvalRecord& eval) override;
  void finish(const TrialOutcome& outcome) override;
  void release(const std::string& message) override;
  std::optional<int64_t> best_eval_index_to_target() override;
  std::optional<int64_t> best_steps_to_goal(const TrainingGoal& goal) override;
  FastestTimes fastest() override;

 private:
  StudyStore& store_;
  std::string store_path_, owner_;
  TrialRecord trial_;
  StudyRecord study_;
  double lease_sec_, heartbeat_sec_;
  std::shared_ptr<const RaceBounds> bounds_;
  std::unique_ptr<StudyStore> heartbeat_store_;
};

}  // namespace pacer
