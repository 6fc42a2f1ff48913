#pragma once
// `pacer probe --stability`: the playbook's training-instability probe. Short runs (no warmup,
// no clipping) over a geometric learning-rate sweep find the largest stable learning rate and
// the divergence point; then, at the divergence point, warmups of increasing length (orders of
// magnitude apart) are tested and the shortest one that makes it stable is advised; and gradient
// clipping at the 90th percentile of a stable run's gradient norms is tested there too. Every run
// records its per-step loss and gradient norm (train/grad_norm), so spikes are visible.
//
//   pacer::StabilityProbeOptions options;
//   options.steps = 200;
//   pacer::StabilityProbeReport r = pacer::run_stability_probe("fmnist_mlp", "momentum", options);
//   std::cout << r.verdict.explanation << "\n" << r.warmup_advice << "\n" << r.clipping_advice;
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe/probe_setup.h"
#include "probe/stability_verdict.h"

namespace pacer {

struct StabilityProbeOptions : ProbeSetup {
  std::vector<double> learning_rates;   // explicit (any order); empty: the geometric sweep below
  double lr_min = 0.0, lr_max = 0.0;    // 0: the algorithm's default learning rate / 8 and x 64
  double factor = 2.0;                  // between swept rates
  int64_t steps = 200;                  // per run (after any warmup)
  std::vector<int64_t> warmup_steps;    // empty: steps/100, steps/10, steps (at least 1, distinct)
  bool test_clipping = true;
  std::optional<int64_t> batch_size;
  StabilityRules rules;
};

struct StabilityProbeReport {
  std::string workload, algorithm, device;
  int64_t steps = 0, batch_size = 0, step_hint = 0;
  std::vector<StabilityRun> sweep;           // by learning rate, ascending
  std::vector<RunAssessment> sweep_assessments;
  LearningRateVerdict verdict;
  std::vector<StabilityRun> warmup_runs;     // at the divergence point
  std::vector<RunAssessment> warmup_assessments;
  std::optional<int64_t> recommended_warmup_steps;
  std::string warmup_advice;
  std::optional<double> clip_threshold;      // p90 of the best stable run's gradient norms
  std::optional<StabilityRun> clip_run;      // at the divergence point, clipped at the threshold
  std::optional<RunAssessment> clip_assessment;
  std::string clipping_advice;
  std::string to_json() const;
};

// InputError for unknown names, an algorithm without learning_rate, or bad options.
// InputError naming the option: fewer than 10 steps, a warmup length that is not positive. The
// probe checks this first; a command calls it before it writes anything.
void check_stability_probe_options(const StabilityProbeOptions& options);

StabilityProbeReport run_stability_probe(const std::string& workload, const std::string& algorithm,
                                         const StabilityProbeOptions& options);

// lr_min, lr_min x factor, ... <= lr_max (x (1 + 1e-9)); InputError unless 0 < min <= max, factor > 1.
std::vector<double> geometric_learning_rates(double lr_min, double lr_max, double factor);

}  // namespace pacer
