// Fuzz target: hyperparameter JSON (--hparams, hparams.json) and its resolution against an
// algorithm's declared hyperparameters (ranges with open and closed ends).
#include "core/hyperparameters.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pacer::fuzz::expect_result_or_error([&] {
    const pacer::Hyperparameters given = pacer::Hyperparameters::from_json_text(text, "fuzz.json");
    std::vector<pacer::HyperparameterSpec> specs(3);
    specs[0].name = "learning_rate";
    specs[0].default_value = 1e-3;
    specs[0].min = 0.0;
    specs[0].min_excluded = true;
    specs[1].name = "beta2";
    specs[1].default_value = 0.999;
    specs[1].min = 0.0;
    specs[1].max = 1.0;
    specs[1].max_excluded = true;
    specs[2].name = "warmup_factor";
    specs[2].default_value = 0.05;
    specs[2].min = 0.0;
    specs[2].max = 1.0;
    pacer::resolve_hyperparameters(specs, given, "fuzz");
  });
  return 0;
}
