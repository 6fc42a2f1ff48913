#pragma once
// Watches a trial without steering it: the log writer, the progress display and the study
// store's recorder are observers, as are checkpoints to come. Called on the lead rank only, off
// the clock (the time an eval's observers take counts as logging time). Torch-free.
//
//   class PrintBest : public pacer::TrialObserver {
//     void on_eval(const pacer::EvalReport& e) override { std::cout << e.record.step << "\n"; }
//   };
//   options.observers.push_back(std::make_shared<PrintBest>());
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/hyperparameters.h"
#include "catalog/trial_result.h"

namespace pacer {

// What is known once set-up is done and before the first step.
struct TrialStart {
  WorkloadSpec workload;
  std::string algorithm;
  uint64_t seed = 0;
  std::string device;
  int threads = 0;
  int64_t batch_size = 0;
  double time_budget = 0.0;
  std::string eval_cadence;               // "every 2 s", "every 200 steps", ...
  std::optional<Hyperparameters> hparams; // none under self-tuning
  int64_t preemption_count = 0;           // > 0: resumed from a checkpoint this many times
  std::vector<EvalRecord> earlier_evals;  // resumed: the evals logged before the checkpoint
  std::string clock = "wall";             // what submission time is measured by (wall, cpu)
};

struct EvalReport {
  const EvalRecord& record;
  double training_loss = 0.0;  // of the step just taken
  double time_budget = 0.0;
  double grad_norm = std::numeric_limits<double>::quiet_NaN();  // of that step; NaN: not reported
};

struct StepReport {
  int64_t step = 0;
  double accumulated_submission_time = 0.0;
  double time_budget = 0.0;
  double training_loss = 0.0;
  const EvalRecord* last_eval = nullptr;  // null before the first eval
  double grad_norm = std::numeric_limits<double>::quiet_NaN();  // NaN: the algorithm reports none
};

class TrialObserver {
 public:
  virtual ~TrialObserver() = default;
  virtual void on_start(const TrialStart& /*start*/) {}
  virtual void on_eval(const EvalReport& /*report*/) {}
  // Steps between evals; called only when `wants_steps()` (progress bars throttle themselves).
  virtual bool wants_steps() const { return false; }
  virtual void on_step(const StepReport& /*report*/) {}
  virtual void on_message(const std::string& /*line*/) {}  // e.g. why the run diverged
  virtual void on_finish(const TrialResult& /*result*/) {}
};

}  // namespace pacer
