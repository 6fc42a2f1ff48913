#include "core/stop_reason.h"

#include "core/error.h"

namespace pacer {
namespace {
constexpr StopReason kAll[] = {StopReason::targets_reached, StopReason::budget,      StopReason::training_complete,
                               StopReason::max_steps,       StopReason::goal_reached, StopReason::interrupted,
                               StopReason::diverged,        StopReason::error,        StopReason::race_study_best,
                               StopReason::race_4x_fastest};
}  // namespace

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::targets_reached: return "targets_reached";
    case StopReason::budget: return "budget";
    case StopReason::training_complete: return "training_complete";
    case StopReason::max_steps: return "max_steps";
    case StopReason::goal_reached: return "goal_reached";
    case StopReason::interrupted: return "interrupted";
    case StopReason::diverged: return "diverged";
    case StopReason::error: return "error";
    case StopReason::race_study_best: return "race_study_best";
    case StopReason::race_4x_fastest: return "race_4x_fastest";
  }
  return "error";
}

StopReason parse_stop_reason(const std::string& text) {
  std::string accepted;
  for (StopReason r : kAll) {
    if (text == to_string(r)) return r;
    accepted += std::string(accepted.empty() ? "" : ", ") + to_string(r);
  }
  throw InputError("unknown stop reason '" + text + "' (accepted: " + accepted + ")");
}

}  // namespace pacer
