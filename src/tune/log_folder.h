#pragma once
// The reference log layout a tuning run writes (`pacer tune --out`): OUT/study_<k>/<workload>_
// libtorch/trial_<i>/ has no experiment level, as AlgoPerf's has none, so two experiments given
// one --out would overwrite each other's logs. The first run claims the folder for its
// experiment and ruleset (OUT/pacer_logs.json); another is then refused, before any work, while
// more workers or a resumed run of the same experiment share it (the store hands each trial to
// one worker, so their trial folders never collide).
//
//   pacer::claim_log_folder("logs/nadamw", "nadamw", "external");  // InputError if another's
#include <string>

namespace pacer {

void claim_log_folder(const std::string& out, const std::string& experiment, const std::string& ruleset);

}  // namespace pacer
