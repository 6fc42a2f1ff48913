#include "tune/sampler.h"

#include <cmath>

#include "core/error.h"
#include "core/seed.h"
#include "tune/halton.h"
#include "tune/paired_coordinates.h"

namespace pacer {
namespace {

void require_dict(const SearchSpace& space, const std::string& sampler) {
  if (space.is_list()) {
    throw InputError("the " + sampler + " sampler needs ranges or feasible points; a list of points runs with --sampler list");
  }
}

Hyperparameters map_point(const SearchSpace& space, const std::vector<double>& unit) {
  Hyperparameters point;
  for (size_t d = 0; d < space.dimensions.size(); ++d) point.set(space.dimensions[d].name, map_unit_value(space.dimensions[d], unit[d]));
  return point;
}

// A double in [0, 1) from 53 random bits.
double unit_double(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Seed 0: nothing. Another: value i shifted by a seeded offset of its stream streams[i], mod 1
// (a Cranley-Patterson rotation).
void rotate(std::vector<double>& unit, uint64_t seed, uint64_t rotation_stream, const std::vector<uint64_t>& streams) {
  if (seed == 0) return;
  for (size_t d = 0; d < unit.size(); ++d) {
    unit[d] += unit_double(derive_seed(derive_seed(seed, rotation_stream), streams[d]));
    if (unit[d] >= 1.0) unit[d] -= 1.0;
  }
}

// Seed 0: the reference sequence itself. Another seed: the same sequence under a random shift
// per dimension, modulo 1 (a Cranley-Patterson rotation): each point is uniform over the unit
// cube, the set keeps its low discrepancy, and two seeds give two independent sets of points
// (before, the seed only reordered one set, so a "rerun" re-measured the same points).
class HaltonSampler : public Sampler {
 public:
  explicit HaltonSampler(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "halton"; }
  std::vector<Hyperparameters> sample(const SearchSpace& space, int64_t position, int64_t count) const override {
    require_dict(space, name());
    std::vector<Hyperparameters> out;
    std::vector<uint64_t> dims(space.dimensions.size());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = d;
    for (auto unit : halton_unit_points(static_cast<int>(space.dimensions.size()), position, count)) {
      rotate(unit, seed_, kRotationStream, dims);
      out.push_back(map_point(space, unit));
    }
    return out;
  }

 private:
  static constexpr uint64_t kRotationStream = 0x68616c746f6eULL;  // "halton": apart from the shuffle's seeds
  uint64_t seed_;
};

// Paired studies (docs/scoring.md, "Paired runs"): the reference's scrambled sequence on the
// board-wide coordinates of tune/paired_coordinates.h instead of the space's own dimensions, so
// every algorithm's point n shares its learning-rate draw (and those of the shared names) with
// every other algorithm's point n. A seed other than 0 rotates each coordinate, as above.
class PairedHaltonSampler : public Sampler {
 public:
  explicit PairedHaltonSampler(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "paired_halton"; }
  std::vector<Hyperparameters> sample(const SearchSpace& space, int64_t position, int64_t count) const override {
    require_dict(space, name());
    const std::vector<int> coordinates = paired_coordinates(space);
    const std::vector<uint64_t> streams(coordinates.begin(), coordinates.end());
    std::vector<Hyperparameters> out;
    for (auto unit : halton_coordinate_points(coordinates, position, count)) {
      rotate(unit, seed_, kRotationStream, streams);
      out.push_back(map_point(space, unit));
    }
    return out;
  }

 private:
  static constexpr uint64_t kRotationStream = 0x706169726564ULL;  // "paired"
  uint64_t seed_;
};

class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "random"; }
  std::vector<Hyperparameters> sample(const SearchSpace& space, int64_t position, int64_t count) const override {
    require_dict(space, name());
    std::vector<Hyperparameters> out;
    for (int64_t i = position; i < position + count; ++i) {
      const uint64_t point_seed = derive_seed(seed_, static_cast<uint64_t>(i));
      std::vector<double> unit;
      for (size_t d = 0; d < space.dimensions.size(); ++d) unit.push_back(unit_double(derive_seed(point_seed, d)));
      out.push_back(map_point(space, unit));
    }
    return out;
  }

 private:
  uint64_t seed_;
};

class GridSampler : public Sampler {
 public:
  explicit GridSampler(int points) : points_(points) {
    if (points < 1) throw InputError("--grid-points must be at least 1");
  }
  std::string name() const override { return "grid"; }
  std::optional<int64_t> capacity(const SearchSpace& space) const override {
    require_dict(space, name());
    int64_t total = 1;
    for (const auto& axis : axes(space)) total *= static_cast<int64_t>(axis.size());
    return total;
  }
  std::vector<Hyperparameters> sample(const SearchSpace& space, int64_t position, int64_t count) const override {
    const auto all = axes(space);
    const int64_t total = *capacity(space);
    if (position < 0 || position + count > total) {
      throw InputError("the grid has " + std::to_string(total) + " points; asked for points " + std::to_string(position) +
                       ".." + std::to_string(position + count - 1));
    }
    std::vector<Hyperparameters> out;
    for (int64_t i = position; i < position + count; ++i) {
      std::vector<size_t> index(all.size());
      int64_t rest = i;
      for (size_t d = all.size(); d-- > 0;) {  // last key varies fastest
        index[d] = static_cast<size_t>(rest % static_cast<int64_t>(all[d].size()));
        rest /= static_cast<int64_t>(all[d].size());
      }
      Hyperparameters point;
      for (size_t d = 0; d < all.size(); ++d) point.set(space.dimensions[d].name, all[d][index[d]]);
      out.push_back(point);
    }
    return out;
  }

 private:
  std::vector<std::vector<HyperparameterValue>> axes(const SearchSpace& space) const {
    std::vector<std::vector<HyperparameterValue>> out;
    for (const auto& dim : space.dimensions) {
      if (dim.kind == SearchDimension::Kind::discrete) {
        out.push_back(dim.feasible_points);
        continue;
      }
      std::vector<HyperparameterValue> values;
      if (points_ == 1 || dim.min == dim.max) {
        values.push_back(dim.scaling == Scaling::log ? std::sqrt(dim.min * dim.max) : 0.5 * (dim.min + dim.max));
      } else {
        for (int k = 0; k < points_; ++k) {
          const double x = static_cast<double>(k) / (points_ - 1);
          values.push_back(k == points_ - 1 ? dim.max : map_unit_value(dim, x));
        }
      }
      out.push_back(values);
    }
    return out;
  }
  int points_;
};

class ListSampler : public Sampler {
 public:
  std::string name() const override { return "list"; }
  std::optional<int64_t> capacity(const SearchSpace& space) const override {
    if (!space.is_list()) throw InputError("--sampler list needs a search space that is a list of points");
    return static_cast<int64_t>(space.fixed_points.size());
  }
  std::vector<Hyperparameters> sample(const SearchSpace& space, int64_t position, int64_t count) const override {
    const int64_t total = *capacity(space);
    if (position < 0 || position + count > total) {
      throw InputError("the list has " + std::to_string(total) + " points; asked for points " + std::to_string(position) +
                       ".." + std::to_string(position + count - 1));
    }
    return std::vector<Hyperparameters>(space.fixed_points.begin() + position, space.fixed_points.begin() + position + count);
  }
};

}  // namespace

std::vector<std::string> sampler_names() { return {"halton", "paired_halton", "random", "grid", "list"}; }

std::unique_ptr<Sampler> make_sampler(const std::string& name, const SamplerOptions& options) {
  if (name == "halton" || name == "quasi_random") return std::make_unique<HaltonSampler>(options.seed);
  if (name == "paired_halton") return std::make_unique<PairedHaltonSampler>(options.seed);
  if (name == "random") return std::make_unique<RandomSampler>(options.seed);
  if (name == "grid") return std::make_unique<GridSampler>(options.grid_points);
  if (name == "list") return std::make_unique<ListSampler>();
  throw InputError("unknown sampler '" + name + "' (valid: halton, paired_halton, random, grid, list)");
}

std::vector<int64_t> seeded_permutation(int64_t count, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(std::max<int64_t>(count, 0)));
  for (int64_t i = 0; i < count; ++i) order[static_cast<size_t>(i)] = i;
  uint64_t state = seed;
  auto next = [&state] {
    state += 0x9E3779B97F4A7C15ULL;
    return derive_seed(state, 0);
  };
  for (int64_t i = count - 1; i > 0; --i) {
    // Uniform in [0, i] by rejection (no modulo bias).
    const uint64_t range = static_cast<uint64_t>(i) + 1;
    const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    uint64_t draw;
    do {
      draw = next();
    } while (draw >= limit);
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(draw % range)]);
  }
  return order;
}

}  // namespace pacer
