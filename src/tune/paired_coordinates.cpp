#include "tune/paired_coordinates.h"

#include <algorithm>

namespace pacer {

const std::vector<std::string>& paired_shared_names() {
  // The dimensions that most shipped spaces (and AlgoPerf's) share. Appending a name would move
  // the coordinates of every unshared dimension and so the points of stored paired studies: the
  // list is frozen (the sweep identity names the sampler, and a new table needs a new name).
  static const std::vector<std::string> names = {"learning_rate", "one_minus_beta1", "beta2",       "weight_decay",
                                                 "warmup_factor", "label_smoothing", "dropout_rate"};
  return names;
}

std::vector<int> paired_coordinates(const SearchSpace& space) {
  const auto& shared = paired_shared_names();
  std::vector<int> out;
  int next_own = static_cast<int>(shared.size());
  for (const auto& dim : space.dimensions) {
    const auto it = std::find(shared.begin(), shared.end(), dim.name);
    out.push_back(it != shared.end() ? static_cast<int>(it - shared.begin()) : next_own++);
  }
  return out;
}

}  // namespace pacer
