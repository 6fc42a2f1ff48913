#pragma once
// One worker's share of a board (tune/board_request.h plans it): phase by phase, moving on when a
// phase has nothing left to claim (other workers finish what they hold), then once more over
// everything, waiting for the trials others still run and taking over any whose worker died.
//
//   pacer::run_board_worker(store.path(), plan, pacer::WorkerOptions{});
#include <string>

#include "tune/board.h"
#include "tune/worker_options.h"

namespace pacer {

WorkerReport run_board_worker(const std::string& store, const BoardPlan& plan, WorkerOptions options);

}  // namespace pacer
