#include "run/board_worker.h"

#include "run/tuning_worker.h"

namespace pacer {

WorkerReport run_board_worker(const std::string& store, const BoardPlan& plan, WorkerOptions options) {
  WorkerReport total;
  auto add = [&total](const WorkerReport& r) {
    total.trials_run += r.trials_run;
    total.trials_raced += r.trials_raced;
    total.leases_lost += r.leases_lost;
    total.evals_recorded += r.evals_recorded;
    total.trial_seconds += r.trial_seconds;
    total.store_seconds += r.store_seconds;
    total.store_calls += r.store_calls;
    total.interrupted = total.interrupted || r.interrupted;
  };
  const auto stopped = [&options] { return options.stop_requested && *options.stop_requested; };
  options.wait_for_others = false;
  for (const auto& phase : plan.phases) {
    if (stopped()) break;
    if (options.progress) options.progress->log((options.label.empty() ? "" : options.label + ": ") + "phase " + phase.label);
    add(run_tuning_worker(store, phase.studies, options));
    if (total.interrupted) return total;
  }
  options.wait_for_others = true;
  if (!stopped()) add(run_tuning_worker(store, plan.studies(), options));
  return total;
}

}  // namespace pacer
