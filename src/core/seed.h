#pragma once
// Seed derivation: independent, reproducible streams from one trial seed.
//
//   uint64_t step_seed = pacer::derive_seed(trial_seed, step);
//   uint64_t init_seed = pacer::derive_seed(trial_seed, pacer::SeedStream::model_init);
#include <cstdint>

namespace pacer {

// Named streams so that, e.g., the data order and the model init never share a seed.
enum class SeedStream : uint64_t {
  model_init = 0x1000000000000001ULL,
  data_order = 0x1000000000000002ULL,
  optimizer = 0x1000000000000003ULL,
  dropout = 0x1000000000000004ULL,
};

// SplitMix64 finalizer over (base, stream): cheap, well mixed, platform independent.
inline uint64_t derive_seed(uint64_t base, uint64_t stream) {
  uint64_t z = base * 0x9E3779B97F4A7C15ULL + stream + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline uint64_t derive_seed(uint64_t base, SeedStream stream) {
  return derive_seed(base, static_cast<uint64_t>(stream));
}

}  // namespace pacer
