#pragma once
// When a scaling study's trials evaluate. Steps-to-result is only known to the resolution of the
// eval spacing; on the log-log axes of a scaling plot, evenly spaced evals give large batch sizes
// (few steps) a far coarser resolution than small ones. Geometric spacing gives every batch size
// the same relative resolution: with E evals up to S steps, consecutive evals differ by a factor
// of about S^(1/E).
//
//   std::vector<int64_t> at = pacer::geometric_eval_steps(4000, 60);  // 1, 2, 3, ..., 3616, 4000
#include <cstdint>
#include <vector>

namespace pacer {

// Ascending distinct steps in [1, budget], the last one `budget`; at most `evals` of them
// (fewer where rounding merges small steps). InputError for budget < 1 or evals < 1.
std::vector<int64_t> geometric_eval_steps(int64_t budget, int64_t evals);

}  // namespace pacer
