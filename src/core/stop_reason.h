#pragma once
// Why a trial ended. Written as text (trial.json, the study store, the CLI), read back by
// parse_stop_reason; the text of each value is part of the stored format.
//
//   pacer::StopReason r = pacer::parse_stop_reason("budget");
//   std::cout << pacer::to_string(r);   // "budget"
#include <string>

namespace pacer {

enum class StopReason {
  targets_reached,    // validation and test targets reached
  budget,             // the time budget is spent
  training_complete,  // the algorithm said it is done
  max_steps,          // the step limit
  goal_reached,       // a study's own goal (scaling studies: the first eval past a value)
  interrupted,        // Ctrl-C, a lost lease, a forwarded signal
  race_study_best,    // racing: it can no longer become its study's best trial (run/racing.h)
  race_4x_fastest,    // racing: past 4x the fastest time on its workload, past AlgoPerf's cut-off
  diverged,           // non-finite loss, parameters or eval metric
  error,              // an exception stopped the run
};

const char* to_string(StopReason reason);
// A racing bound stopped the trial: it is a result ("stopped"), neither reached nor failed.
inline bool is_race_stop(StopReason reason) {
  return reason == StopReason::race_study_best || reason == StopReason::race_4x_fastest;
}
StopReason parse_stop_reason(const std::string& text);  // InputError listing the accepted values

}  // namespace pacer
