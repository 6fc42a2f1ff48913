// Fuzz target: eval_measurements.csv as the reference's logs and Pacer's runs write it, then the
// time to target that scoring computes from it.
#include "fuzz_support.h"
#include "score/eval_csv.h"
#include "score/targets.h"
#include "score/time_to_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pacer::TrialLog trial;
  pacer::fuzz::expect_result_or_error([&] {
    pacer::parse_eval_csv(text, "fuzz/eval_measurements.csv", trial);
    if (!trial.problem.empty()) return;
    pacer::ScoringTarget target;
    target.workload = "fuzz";
    target.metric = "accuracy";
    target.validation_target = 0.5;
    for (auto axis : {pacer::TimeAxis::seconds, pacer::TimeAxis::steps}) {
      const pacer::TrialTime t = pacer::trial_time_to_target(trial, target, axis);
      // What scoring may never produce: a negative or NaN time to target.
      if (t.reached() && !(t.time >= 0)) __builtin_trap();
    }
  });
  return 0;
}
