#pragma once
// Shows a trial on a Progress display: a line per eval (step, submission time against the
// budget, the target metric against its target, the training loss), a redrawn status line
// between evals on a terminal, and messages such as why a run diverged.
//
//   pacer::Progress progress(pacer::Progress::auto_detect());
//   options.observers.push_back(std::make_shared<pacer::ProgressObserver>(progress));
#include <string>

#include "core/progress.h"
#include "train/trial_observer.h"

namespace pacer {

class ProgressObserver : public TrialObserver {
 public:
  explicit ProgressObserver(Progress& progress) : progress_(progress) {}
  void on_start(const TrialStart& start) override;
  void on_eval(const EvalReport& report) override;
  bool wants_steps() const override { return progress_.wants_update(); }
  void on_step(const StepReport& report) override;
  void on_message(const std::string& line) override { progress_.log(line); }
  void on_finish(const TrialResult& result) override;

 private:
  Progress& progress_;
  std::string target_key_;  // validation/<target metric>
  double target_ = 0.0;
};

}  // namespace pacer
