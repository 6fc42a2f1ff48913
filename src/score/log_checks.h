#pragma once
// What a trial log's time columns (`score`: submission seconds; `global_step`) may not hold, and
// what they hold only with a warning. Checked once per trial, before scoring:
// - impossible: a negative or infinite time or step (AlgoPerf's clocks count up from 0; an
//   infinite time would end the budget's cut early and drop every later eval). The trial's
//   `problem` names the first such cell ("<file>:<line>: ..."), so scoring refuses it (or, with
//   --lenient, counts it as not reaching, with the message as a warning);
// - ambiguous: a time or step lower than an earlier row's (rows out of order, or a resumed run's
//   evals logged again) and two rows of the same step and time with different metrics. Scored as
//   AlgoPerf's scorer does (rows in file order, the first that reaches counts); the returned
//   warning says so, naming the first such line.
//
//   std::optional<std::string> warning = pacer::check_log_times(trial);
#include <optional>
#include <string>

#include "score/trial_log.h"

namespace pacer {

std::optional<std::string> check_log_times(TrialLog& trial);

}  // namespace pacer
