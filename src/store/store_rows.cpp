#include "store/store_rows.h"

#include <sstream>

#include "core/error.h"
#include "core/metrics_json.h"

namespace pacer {

std::string in_list(const std::vector<int64_t>& ids) {
  std::ostringstream out;
  out << "(";
  for (size_t i = 0; i < ids.size(); ++i) out << (i ? "," : "") << ids[i];
  out << ")";
  return out.str();
}


StudyRecord read_study(const SqlRow& q) {
  StudyRecord s;
  s.id = q.int64(0);
  s.identity = q.text(1);
  s.sweep = q.text(2);
  s.experiment = q.text(3);
  s.workload = q.text(4);
  s.algorithm = q.text(5);
  s.ruleset = q.text(6);
  s.study_index = static_cast<int>(q.int64(7));
  s.space_json = q.text(8);
  s.sampler = q.text(9);
  s.sampler_seed = static_cast<uint64_t>(q.int64(10));
  s.trial_spec = q.text(11);
  s.planned_trials = q.int64(12);
  s.created_at = q.real(13);
  return s;
}


TrialRecord read_trial(const SqlRow& q) {
  TrialRecord t;
  t.id = q.int64(0);
  t.study_id = q.int64(1);
  t.index = q.int64(2);
  t.position = q.optional_int64(3);
  if (!q.is_null(4)) t.hparams_json = q.text(4);
  t.seed = static_cast<uint64_t>(q.int64(5));
  t.status = parse_stored_trial_status(q.text(6));
  t.attempts = static_cast<int>(q.int64(7));
  t.lease_owner = q.text(8);
  t.lease_expires = q.optional_real(9);
  t.heartbeat_at = q.optional_real(10);
  t.started_at = q.optional_real(11);
  t.finished_at = q.optional_real(12);
  if (!is_terminal(t.status)) {
    t.interruption = q.text(15);
    return t;
  }
  TrialOutcome o;
  const std::string outcome = q.text(13);
  const auto status = parse_trial_status(outcome);
  if (!status || stored_status(*status) != t.status) {
    throw InputError("trial " + std::to_string(t.id) + " in the study store is " + to_string(t.status) +
                " with outcome '" + outcome + "'; the store is damaged");
  }
  o.status = *status;
  try {
    o.stop_reason = parse_stop_reason(q.text(14));
  } catch (const InputError&) {
    throw InputError("trial " + std::to_string(t.id) + " in the study store has the stop reason '" + q.text(14) +
                     "'; the store is damaged");
  }
  o.message = q.text(15);
  o.steps = q.optional_int64(16).value_or(0);
  o.submission_time = q.optional_real(17).value_or(0.0);
  o.eval_time = q.optional_real(18).value_or(0.0);
  o.total_duration = q.optional_real(19).value_or(0.0);
  o.time_to_target = q.optional_real(20);
  o.steps_to_target = q.optional_int64(21);
  o.eval_index_to_target = q.optional_int64(22);
  o.best_validation = q.optional_real(23);
  o.threads = static_cast<int>(q.optional_int64(24).value_or(0));
  if (!q.is_null(25)) o.device = q.text(25);
  t.result = std::move(o);
  return t;
}

// The outcome columns, outcome ... device, in kTrialColumns' order.
std::vector<SqlValue> outcome_cells(const TrialOutcome& o) {
  return {std::string(to_string(o.status)), std::string(to_string(o.stop_reason)), o.message, o.steps, o.submission_time, o.eval_time,
          o.total_duration, sql_value(o.time_to_target), sql_value(o.steps_to_target),
          sql_value(o.eval_index_to_target), sql_value(o.best_validation),
          o.threads > 0 ? SqlValue(int64_t{o.threads}) : SqlValue(),
          o.device.empty() ? SqlValue() : SqlValue(o.device)};
}

// Those of a trial as copied: NULL until it ended, except the message of an interruption.
std::vector<SqlValue> outcome_cells(const TrialRecord& t) {
  if (t.result) return outcome_cells(*t.result);
  std::vector<SqlValue> cells(13);
  if (!t.interruption.empty()) cells[2] = t.interruption;
  return cells;
}


// `where` names the row for a damaged one's message.
EvalRecord read_eval(const SqlRow& q, const std::string& where) {
  EvalRecord e;
  e.step = q.int64(1);
  e.accumulated_submission_time = q.real(2);
  e.accumulated_eval_time = q.real(3);
  e.accumulated_logging_time = q.real(4);
  e.total_duration = q.real(5);
  e.preemption_count = q.int64(6);
  e.metrics = metrics_from_json(q.text(7), where + " eval " + std::to_string(q.int64(0)));
  return e;
}

std::string trial_where(const StoreDatabase& db, int64_t trial_id, int64_t attempt) {
  return db.location() + ": trial " + std::to_string(trial_id) + " attempt " + std::to_string(attempt);
}

// One row of the evals table: the trial and attempt, then the values of kEvalColumns in order.
std::vector<SqlValue> eval_row(int64_t trial_id, int64_t attempt, int64_t eval_index, const EvalRecord& e) {
  return {trial_id, attempt, eval_index, e.step, e.accumulated_submission_time, e.accumulated_eval_time,
          e.accumulated_logging_time, e.total_duration, e.preemption_count, metrics_to_json(e.metrics)};
}

}  // namespace pacer
