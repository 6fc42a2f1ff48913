#pragma once
// Common random numbers across algorithms (docs/scoring.md, "Paired runs"): where each dimension of
// a search space sits in one board-wide unit cube, so that study j, trial i of every algorithm
// draws the same quasi-random point and maps it into its own space. The learning rate is
// coordinate 0 everywhere; the names most spaces share follow at fixed coordinates; a space's other
// dimensions take the coordinates after those, in the space's order. The table never changes with
// the spaces on a board, so a newcomer ranked against a board later gets the board's points.
// Torch-free.
//
//   std::vector<int> c = pacer::paired_coordinates(space);  // spaces/adamw.json: {0, 1, 2, 3, 4, 5, 6}
//   // spaces/sgd.json (learning_rate, weight_decay, warmup_factor, decay_steps_factor, ...): {0, 3, 4, 7, ...}
#include <string>
#include <vector>

#include "tune/search_space.h"

namespace pacer {

// The shared names, in coordinate order: learning_rate is 0.
const std::vector<std::string>& paired_shared_names();

// Coordinate of each of the space's dimensions (dict form), distinct, in the space's order.
std::vector<int> paired_coordinates(const SearchSpace& space);

}  // namespace pacer
