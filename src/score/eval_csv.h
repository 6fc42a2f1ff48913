#pragma once
// Parser of eval_measurements.csv (one header line, one row per eval, numeric cells).
//
//   pacer::TrialLog t;
//   pacer::parse_eval_csv(text, "runs/x/eval_measurements.csv", t);  // fills rows, columns, problems
#include <string>

#include "score/trial_log.h"

namespace pacer {

// Fills trial.rows/columns/bad_cells; an empty file or a ragged row sets trial.problem instead
// of throwing, so the caller decides between an error and a --lenient warning.
void parse_eval_csv(const std::string& text, const std::string& file, TrialLog& trial);

}  // namespace pacer
