#pragma once
// What a training-instability probe's short runs say (the playbook's "training instability"):
// which runs are stable, the largest stable learning rate and where training diverges, loss
// spikes, and the gradient-clipping threshold. Torch-free: the rules are tested on loss curves
// with known answers.
//
// The rules (documented in docs/playbook.md):
//   spike     step t (t >= window) whose loss exceeds `spike_factor` x the median loss of the
//             `window` steps before it (a non-finite loss is a spike too);
//   unstable  the run diverged (non-finite loss or parameters), or its loss blew up (some step's
//             loss > `blowup_factor` x the first step's), or it made no progress (the mean loss
//             of its last 10% of steps is not below the first step's loss);
//   largest stable learning rate: the largest swept rate such that it and every smaller swept
//             rate are stable; the divergence point is the next swept rate;
//   clipping threshold: the 90th percentile of the per-step gradient norms of a stable run
//             (the playbook's rule); clipping more than half of the steps is too aggressive.
//
//   pacer::RunAssessment a = pacer::assess_run(run);
//   pacer::LearningRateVerdict v = pacer::learning_rate_verdict(runs);
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pacer {

struct StabilityRules {
  int spike_window = 20;
  double spike_factor = 2.0;
  double blowup_factor = 3.0;
};

// One short run of the probe: per-step training losses and gradient norms.
struct StabilityRun {
  double learning_rate = 0.0;
  int64_t warmup_steps = 0;
  double grad_clip = 0.0;          // 0: no clipping
  std::vector<double> losses;      // per step
  std::vector<double> grad_norms;  // per step (empty: the algorithm reports none)
  bool diverged = false;           // non-finite loss or parameters
  std::string message;
};

struct RunAssessment {
  bool stable = false;
  std::string reason;              // "stable", "diverged: ...", "loss blew up to ...", "no progress ..."
  double initial_loss = 0.0, final_loss = 0.0, max_loss = 0.0;
  std::vector<int64_t> spikes;     // 0-based steps
  double clipped_fraction = 0.0;   // of the steps, with grad_clip > 0
};

std::vector<int64_t> detect_loss_spikes(const std::vector<double>& losses, const StabilityRules& rules = {});
RunAssessment assess_run(const StabilityRun& run, const StabilityRules& rules = {});

// The q-th percentile (0..100) with linear interpolation between order statistics (numpy's
// default); non-finite values are ignored; NaN for no values.
double percentile(std::vector<double> values, double q);

struct LearningRateVerdict {
  std::optional<double> largest_stable;   // none: even the smallest rate is unstable
  std::optional<double> divergence_point; // the first unstable rate above it; none: all stable
  std::optional<double> best;             // the stable rate with the lowest final loss
  std::string explanation;
};

// `runs` without warmup or clipping, any order (sorted by learning rate here).
LearningRateVerdict learning_rate_verdict(const std::vector<StabilityRun>& runs, const StabilityRules& rules = {});

}  // namespace pacer
