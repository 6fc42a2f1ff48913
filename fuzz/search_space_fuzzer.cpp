// Fuzz target: search-space JSON (--space, spaces/*.json, AlgoPerf tuning_search_space.json),
// then sampling it at a few unit points as a study would.
#include "fuzz_support.h"
#include "tune/search_space.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pacer::fuzz::expect_result_or_error([&] {
    const pacer::SearchSpace space = pacer::SearchSpace::from_json_text(text, "fuzz.json");
    for (const auto& dim : space.dimensions) {
      for (double x : {0.0, 0.5, 0.999}) pacer::map_unit_value(dim, x);
    }
    // The documented round trip: what Pacer writes back into a store reads as the same space.
    const pacer::SearchSpace again = pacer::SearchSpace::from_json_text(space.to_json(), "round trip");
    if (again.names() != space.names()) __builtin_trap();
  });
  return 0;
}
