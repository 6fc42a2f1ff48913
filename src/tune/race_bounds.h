#pragma once
// The bound of racing's 4x cut-off (run/racing.h, stop_past_the_cutoff): for a study, upper
// bounds on the fastest median time to target, by seconds and by steps, that the submissions it is
// compared with will end with on its workload. From the study store: the other experiments with the
// same workload, ruleset, trial settings and board part (a rerun is compared with its own part); a
// study counts once all its trials are finished (a study's time can still rise while trials run:
// its best is picked by eval index), and an experiment's bound is the k-th smallest of its
// studies' times, k = n/2 + 1 of n (its median can only be lower), for odd n only (an even median
// averages two times). Plus fixed times from boards given with --against.
//
//   pacer::RaceBounds bounds;
//   bounds.add_fixed("fmnist_mlp", "external", {2.5, 900});
//   pacer::FastestTimes f = bounds.fastest(store, study);   // min over both sources
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "store/study_store.h"

namespace pacer {

struct FastestTimes {
  double seconds = std::numeric_limits<double>::infinity();
  double steps = std::numeric_limits<double>::infinity();
};

class RaceBounds {
 public:
  // A board's median times on a workload under a ruleset (the minimum is kept).
  void add_fixed(const std::string& workload, const std::string& ruleset, FastestTimes times);
  FastestTimes fastest(const StudyStore& store, const StudyRecord& study) const;
  bool has_fixed() const { return !fixed_.empty(); }
  // The fixed times on a workload under a ruleset, if any were added.
  std::optional<FastestTimes> fixed(const std::string& workload, const std::string& ruleset) const;

 private:
  std::map<std::pair<std::string, std::string>, FastestTimes> fixed_;
};

}  // namespace pacer
