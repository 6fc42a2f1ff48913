#pragma once
// The reference quasi-random sampler of AlgoPerf (algorithmic_efficiency/halton.py), point for
// point: dimension d uses the d-th of the num_dims largest odd primes below 1000 except 997; per
// base b, an MT19937 seeded with b shuffles [1..b-1] as numpy's RandomState.shuffle does, the
// digit map is [0] + that permutation, and a shift = random_sample() from the same generator;
// point i is the scrambled radical inverse of i, plus the shift, mod 1; the first 100 points are
// skipped. (The reference then shuffles the points with an unseeded generator: see sweep.cpp.)
//
//   auto points = pacer::halton_unit_points(3, 0, 5);  // the reference's 5 points for 3 dims
//   auto paired = pacer::halton_coordinate_points({0, 3}, 0, 5);  // coordinates 0 and 3 of the fixed cube
#include <cstdint>
#include <vector>

namespace pacer {

constexpr int64_t kHaltonSkip = 100;

// The bases of the first num_dims dimensions, ascending (1 dim: {991}; 3: {977, 983, 991}).
std::vector<int> halton_bases(int num_dims);  // InputError outside [1, 166]

// Kept points first .. first+count-1 (kept point n is Halton index n + 101): result[n][d] in [0, 1).
std::vector<std::vector<double>> halton_unit_points(int num_dims, int64_t first, int64_t count);

// The same scrambled sequence on fixed coordinates instead of a space's own dimensions: coordinate
// c always uses the (c+1)-th largest of those primes (0: 991, 1: 983, ...), whatever else is drawn,
// so two spaces of different sizes share the values of the coordinates they both use (paired
// studies, tune/paired_coordinates.h). result[n][i] is coordinate coordinates[i] of kept point
// first + n. InputError for a coordinate outside [0, 166).
std::vector<std::vector<double>> halton_coordinate_points(const std::vector<int>& coordinates, int64_t first, int64_t count);

}  // namespace pacer
