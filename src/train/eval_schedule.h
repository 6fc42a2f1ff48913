#pragma once
// When the trial runner evaluates. A cadence says which steps are due by its own rule (every
// eval period of wall time, every N steps, or at given steps); the schedule adds the evals the
// timing protocol always takes: after the first step, after the last one (step limit) and when
// the algorithm says training is complete. Torch-free.
//
//   pacer::EvalSchedule schedule(pacer::make_eval_cadence(trial_spec, workload_spec), trial_spec.max_steps);
//   if (schedule.due(step, clock.now(), last_eval_end, update.training_complete)) evaluate();
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catalog/trial_spec.h"

namespace pacer {

class EvalCadence {
 public:
  virtual ~EvalCadence() = default;
  // After `step` steps (1-based), at clock reading `now`; the last eval ended at `last_eval_end`.
  virtual bool due(int64_t step, double now, double last_eval_end) const = 0;
};

// AlgoPerf's rule: an eval once `period` seconds of wall time have passed since the last one ended.
class PeriodicEvalCadence : public EvalCadence {
 public:
  explicit PeriodicEvalCadence(double period_sec) : period_(period_sec) {}
  bool due(int64_t step, double now, double last_eval_end) const override;

 private:
  double period_;
};

// Every `every` steps: reproducible eval points, independent of the machine's speed.
class EveryNStepsCadence : public EvalCadence {
 public:
  explicit EveryNStepsCadence(int64_t every);  // InputError unless every >= 1
  bool due(int64_t step, double now, double last_eval_end) const override;

 private:
  int64_t every_;
};

// Exactly at the given (strictly increasing) steps: scaling studies space them geometrically.
class AtStepsCadence : public EvalCadence {
 public:
  explicit AtStepsCadence(std::vector<int64_t> steps);  // InputError unless positive and increasing
  bool due(int64_t step, double now, double last_eval_end) const override;

 private:
  std::vector<int64_t> steps_;
};

// The cadence a trial spec asks for: given steps, else every N steps, else the workload's period.
std::unique_ptr<EvalCadence> make_eval_cadence(const TrialSpec& trial, const WorkloadSpec& workload);

class EvalSchedule {
 public:
  // max_steps > 0: the step limit, whose last step is always evaluated.
  EvalSchedule(std::unique_ptr<EvalCadence> cadence, int64_t max_steps);
  bool due(int64_t step, double now, double last_eval_end, bool training_complete) const;

 private:
  std::unique_ptr<EvalCadence> cadence_;
  int64_t max_steps_;
};

}  // namespace pacer
