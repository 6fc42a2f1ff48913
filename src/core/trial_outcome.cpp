#include "core/trial_outcome.h"

namespace pacer {

const char* to_string(TrialStatus status) {
  switch (status) {
    case TrialStatus::reached: return "reached";
    case TrialStatus::not_reached: return "not_reached";
    case TrialStatus::stopped: return "stopped";
    case TrialStatus::diverged: return "diverged";
    case TrialStatus::failed: return "failed";
    case TrialStatus::interrupted: return "interrupted";
  }
  return "failed";
}

std::optional<TrialStatus> parse_trial_status(const std::string& text) {
  for (TrialStatus s : {TrialStatus::reached, TrialStatus::not_reached, TrialStatus::stopped, TrialStatus::diverged,
                        TrialStatus::failed, TrialStatus::interrupted}) {
    if (text == to_string(s)) return s;
  }
  return std::nullopt;
}

}  // namespace pacer
