#pragma once
// What `pacer run` prints at the end of a trial: status and stop reason, the target, time and
// steps to it (validation and test), the best validation value, steps and submission time against
// the budget, the noise scale when it was measured, and where the results are. Torch-free.
//
//   std::fputs(pacer::trial_summary(result, workload.spec(), "runs/demo").c_str(), stdout);
#include <string>

#include "catalog/trial_result.h"
#include "catalog/workload_spec.h"

namespace pacer {

// `out_dir` empty: says the results were not saved.
std::string trial_summary(const TrialResult& result, const WorkloadSpec& spec, const std::string& out_dir);

}  // namespace pacer
