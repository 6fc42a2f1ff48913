#pragma once
// Where trial results come from. Today: log trees in the reference layout (LogTreeSource). The
// study store (SQLite) will be a second implementation, so scoring never touches files itself.
//
//   pacer::LogTreeSource source({"runs/nadamw", "runs/adamw"});
//   std::vector<pacer::TrialLog> trials = source.trials();
#include <string>
#include <vector>

#include "score/trial_log.h"

namespace pacer {

class ResultSource {
 public:
  virtual ~ResultSource() = default;
  // Every trial of every submission; malformed logs come back with TrialLog::problem set.
  virtual std::vector<TrialLog> trials() const = 0;
  // The submissions in the order the user named them (leaderboard ties keep this order).
  virtual std::vector<std::string> submissions() const = 0;
};

}  // namespace pacer
