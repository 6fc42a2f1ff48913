#include "tune/halton.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <string>

#include "core/error.h"

namespace pacer {
namespace {

std::vector<int> odd_primes_below(int n) {
  std::vector<int> primes;
  for (int candidate = 3; candidate < n; candidate += 2) {
    bool prime = true;
    for (int d = 3; d * d <= candidate; d += 2) {
      if (candidate % d == 0) {
        prime = false;
        break;
      }
    }
    if (prime) primes.push_back(candidate);
  }
  return primes;
}

// numpy's legacy bounded integer in [0, max]: mask-and-reject over 32-bit draws.
uint32_t bounded(std::mt19937& rng, uint32_t max) {
  if (max == 0) return 0;
  uint32_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  uint32_t value;
  while ((value = (static_cast<uint32_t>(rng()) & mask)) > max) {
  }
  return value;
}

struct Scramble {
  std::vector<int> digits;  // [0] + shuffled [1..b-1]
  double shift = 0.0;
};

Scramble make_scramble(int base) {
  std::mt19937 rng(static_cast<uint32_t>(base));  // init_genrand(base), as RandomState(base)
  std::vector<int> perm;
  for (int v = 1; v < base; ++v) perm.push_back(v);
  // RandomState.shuffle: Fisher-Yates from the end.
  for (size_t i = perm.size() - 1; i > 0; --i) {
    const uint32_t j = bounded(rng, static_cast<uint32_t>(i));
    std::swap(perm[i], perm[j]);
  }
  Scramble s;
  s.digits.push_back(0);
  s.digits.insert(s.digits.end(), perm.begin(), perm.end());
  // random_sample(): 53 bits from two draws.
  const uint32_t a = static_cast<uint32_t>(rng()) >> 5, b = static_cast<uint32_t>(rng()) >> 6;
  s.shift = (a * 67108864.0 + b) / 9007199254740992.0;
  return s;
}

const Scramble& scramble_for(int base) {
  static std::mutex mutex;
  static std::map<int, Scramble> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(base);
  if (it == cache.end()) it = cache.emplace(base, make_scramble(base)).first;
  return it->second;
}

}  // namespace

std::vector<int> halton_bases(int num_dims) {
  static const std::vector<int> primes = odd_primes_below(1000);  // 3 .. 997
  const int available = static_cast<int>(primes.size()) - 1;       // 997 is never used
  if (num_dims < 1 || num_dims > available) {
    throw InputError("the quasi-random sampler supports 1 to " + std::to_string(available) + " hyperparameters (got " +
                     std::to_string(num_dims) + ")");
  }
  return std::vector<int>(primes.end() - 1 - num_dims, primes.end() - 1);
}

namespace {

// Scrambled radical inverse of kept point n in `base`, plus the base's shift, mod 1; the same
// operation order as the reference, so the doubles agree bit for bit.
double scrambled_point(int base, int64_t n) {
  const Scramble& s = scramble_for(base);
  int64_t i = n + kHaltonSkip + 1;
  double num = 0.0;
  double denominator = base;
  while (i) {
    num += s.digits[static_cast<size_t>(i % base)] / denominator;
    denominator *= base;
    i /= base;
  }
  return std::fmod(num + s.shift, 1.0);
}

std::vector<std::vector<double>> points_in_bases(const std::vector<int>& bases, int64_t first, int64_t count) {
  if (first < 0 || count < 0) throw InputError("Halton points: negative position or count");
  std::vector<std::vector<double>> points(static_cast<size_t>(count), std::vector<double>(bases.size()));
  for (size_t d = 0; d < bases.size(); ++d)
    for (int64_t n = 0; n < count; ++n) points[static_cast<size_t>(n)][d] = scrambled_point(bases[d], first + n);
  return points;
}

}  // namespace

std::vector<std::vector<double>> halton_unit_points(int num_dims, int64_t first, int64_t count) {
  if (first < 0 || count < 0) throw InputError("Halton points: negative position or count");
  return points_in_bases(halton_bases(num_dims), first, count);
}

std::vector<std::vector<double>> halton_coordinate_points(const std::vector<int>& coordinates, int64_t first,
                                                          int64_t count) {
  static const std::vector<int> descending = [] {
    std::vector<int> b = halton_bases(166);  // every usable base, ascending
    std::reverse(b.begin(), b.end());
    return b;
  }();
  std::vector<int> bases;
  for (int c : coordinates) {
    if (c < 0 || c >= static_cast<int>(descending.size()))
      throw InputError("paired quasi-random points: coordinate " + std::to_string(c) + " outside [0, " +
                       std::to_string(descending.size()) + ")");
    bases.push_back(descending[static_cast<size_t>(c)]);
  }
  return points_in_bases(bases, first, count);
}

}  // namespace pacer
