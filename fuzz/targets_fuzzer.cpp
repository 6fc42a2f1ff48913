// Fuzz target: targets JSON (--targets), both Pacer's format and the reference's
// workload_targets*.json, under each rules preset.
#include "fuzz_support.h"
#include "score/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pacer::fuzz::write_input_file(data, size, ".json");
  for (const char* rules : {"v0.5", "v0.6"}) {
    pacer::fuzz::expect_result_or_error([&] {
      pacer::TargetTable table = pacer::TargetTable::reference(pacer::rules_preset(rules));
      table.override_from_file(path);
      table.at("wmt");
    });
  }
  return 0;
}
