#pragma once
// What `pacer board` writes from a board's results: per part, the score files, charts and report
// page on each time axis (OUT/<part>/seconds/, OUT/<part>/steps/); then OUT/board.md,
// OUT/step_costs.csv and, with a bootstrap, OUT/stability.json. Each file is written atomically;
// a stability.json of an earlier run is removed when this run has none (it would no longer match
// board.md).
//
//   const pacer::BoardResults results = pacer::board_results(store, plan, setup, 1000);
//   std::puts(pacer::write_board_outputs(results, "runs/board").c_str());  // "wrote runs/board/board.md, ..."
#include <string>

#include "tune/board_request.h"

namespace pacer {

// Returns the line that says what was written.
std::string write_board_outputs(const BoardResults& results, const std::string& out);

}  // namespace pacer
