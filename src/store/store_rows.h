#pragma once
// How the study store's records map to its rows: the column lists, a row read into a record, a
// record's cells. Used by StudyStore (store/study_store.cpp) only. Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/eval_record.h"
#include "core/trial_outcome.h"
#include "store/store_database.h"
#include "store/study_store.h"

namespace pacer {

inline constexpr const char* kStudyColumns =
    "id, identity, sweep, experiment, workload, algorithm, ruleset, study_index, space, sampler, sampler_seed, "
    "trial_spec, planned_trials, created_at";

inline constexpr const char* kTrialColumns =
    "id, study_id, trial_index, position, hparams, seed, status, attempts, lease_owner, lease_expires, "
    "heartbeat_at, started_at, finished_at, outcome, stop_reason, message, steps, submission_time, eval_time, "
    "total_duration, time_to_target, steps_to_target, eval_index_to_target, best_validation, threads, device";

inline constexpr const char* kEvalColumns =
    "eval_index, global_step, submission_time, eval_time, logging_time, total_duration, preemption_count, metrics";

// "(1,2,3)" for an IN clause.
std::string in_list(const std::vector<int64_t>& ids);
StudyRecord read_study(const SqlRow& q);  // a row of kStudyColumns
TrialRecord read_trial(const SqlRow& q);  // a row of kTrialColumns; InputError for a damaged one
// The outcome columns, outcome ... device, in kTrialColumns' order; a trial's as copied (NULL
// until it ended, except the message of an interruption).
std::vector<SqlValue> outcome_cells(const TrialOutcome& o);
std::vector<SqlValue> outcome_cells(const TrialRecord& t);
EvalRecord read_eval(const SqlRow& q, const std::string& where);  // `where` names the row for a damaged one
std::string trial_where(const StoreDatabase& db, int64_t trial_id, int64_t attempt);
// One row of the evals table: the trial and attempt, then the values of kEvalColumns in order.
std::vector<SqlValue> eval_row(int64_t trial_id, int64_t attempt, int64_t eval_index, const EvalRecord& e);

}  // namespace pacer
