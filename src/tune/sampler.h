#pragma once
// Samplers of search-space points (torch-free). Each is a deterministic sequence: sample(space,
// position, count) gives points position .. position+count-1, so studies can take consecutive,
// distinct blocks of one sequence and a resumed run regenerates nothing differently.
//   halton: the reference quasi-random sequence (tune/halton.h), mapped per dimension; with a
//           seed other than 0, the same sequence rotated by a seeded shift per dimension (fresh
//           points, same low discrepancy; seed 0 reproduces the reference's points);
//   paired_halton: the same scrambled sequence on board-wide coordinates (tune/paired_coordinates.h):
//           every space's point n shares its learning-rate value's draw with every other space's
//           point n (common random numbers across algorithms); seeds rotate as for halton;
//   random: uniform in the mapped space (log-uniform for log ranges), point i from its own seed;
//   grid:   the cartesian product in key order (last key fastest), ranges at grid_points values;
//   list:   the space's fixed points in order.
//
//   auto sampler = pacer::make_sampler("halton", {});
//   std::vector<pacer::Hyperparameters> points = sampler->sample(space, 0, 5);
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/hyperparameters.h"
#include "tune/search_space.h"

namespace pacer {

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string name() const = 0;
  // Points [position, position + count) of this sampler's sequence; keys in the space's order.
  // InputError past the end of a finite sequence or for a space the sampler cannot serve.
  virtual std::vector<Hyperparameters> sample(const SearchSpace& space, int64_t position, int64_t count) const = 0;
  // How many distinct points exist (grid, list); nullopt when unbounded (halton, random).
  virtual std::optional<int64_t> capacity(const SearchSpace&) const { return std::nullopt; }
};

struct SamplerOptions {
  uint64_t seed = 0;    // halton: the rotation (0: none); random: the sequence; every sampler: the recorded shuffle
  int grid_points = 3;  // grid: values per range dimension, both ends included
};

// "halton" (alias "quasi_random"), "random", "grid", "list"; InputError for other names.
std::unique_ptr<Sampler> make_sampler(const std::string& name, const SamplerOptions& options);
std::vector<std::string> sampler_names();

// A permutation of [0, count) from a seed: Fisher-Yates over SplitMix64 with rejection, written
// out so that it is the same on every standard library.
std::vector<int64_t> seeded_permutation(int64_t count, uint64_t seed);

}  // namespace pacer
