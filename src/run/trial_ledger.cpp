#include "run/trial_ledger.h"

#include <cmath>
#include <utility>

namespace pacer {

StoreLedger::StoreLedger(StudyStore& store, std::string store_path, const TrialRecord& trial, const StudyRecord& study,
                         std::string owner, const WorkerOptions& options)
    : store_(store),
      store_path_(std::move(store_path)),
      owner_(std::move(owner)),
      trial_(trial),
      study_(study),
      lease_sec_(options.lease_sec),
      heartbeat_sec_(options.heartbeat_sec),
      bounds_(options.race_bounds) {}

StoreLedger::~StoreLedger() = default;

bool StoreLedger::heartbeat() {
  try {
    if (!heartbeat_store_) {
      // Short waits: the heartbeat thread also relays Ctrl-C to the trial and is joined when it
      // ends, so it gives up on an outage quickly and tries again at the next beat.
      StudyStoreOptions quick;
      quick.reconnect_timeout_sec = heartbeat_sec_;
      heartbeat_store_ = std::make_unique<StudyStore>(store_path_, quick);
    }
    return heartbeat_store_->heartbeat(trial_.id, owner_, lease_sec_);
  } catch (...) {
    heartbeat_store_.reset();
    throw;
  }
}

void StoreLedger::record_eval(int64_t eval_index, const EvalRecord& eval) {
  store_.record_eval(trial_.id, owner_, trial_.attempts, eval_index, eval);
}

void StoreLedger::finish(const TrialOutcome& outcome) { store_.finish_trial(trial_.id, owner_, outcome); }

void StoreLedger::release(const std::string& message) { store_.release_trial(trial_.id, owner_, message); }

std::optional<int64_t> StoreLedger::best_eval_index_to_target() { return store_.best_eval_index_to_target(study_.id); }

std::optional<int64_t> StoreLedger::best_steps_to_goal(const TrainingGoal& goal) {
  std::optional<int64_t> best;
  for (const TrialRecord& t : store_.trials(study_.id)) {
    if (!is_terminal(t.status) || t.status == StoredTrialStatus::diverged) continue;
    for (const EvalRecord& e : store_.evals(t.id, t.attempts)) {
      auto v = e.metrics.find(goal.metric);
      if (v != e.metrics.end() && std::isfinite(v->second) && goal.reached_by(v->second)) {
        if (!best || e.step < *best) best = e.step;
        break;
      }
    }
  }
  return best;
}

FastestTimes StoreLedger::fastest() { return (bounds_ ? *bounds_ : RaceBounds()).fastest(store_, study_); }

}  // namespace pacer
