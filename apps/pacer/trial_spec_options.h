#pragma once
// The options of `pacer run` and `pacer tune` that say what a trial measures, bound straight to a
// TrialSpec (no copies field by field): --device, --data-dir, --eval-every, --max-steps,
// --batch-size, --budget, --budget-multiplier, --ignore-targets, --eval-splits, --clock.
//
//   auto trial = std::make_shared<TrialSpecOptions>();
//   add_trial_spec_options(app, trial);
//   ... after parsing:
//   request.trial = trial->resolved();   // the budget multiplier only when --budget-multiplier was given
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/hyperparameters.h"
#include "catalog/checkpoint_policy.h"
#include "catalog/trial_spec.h"

namespace pacer::cli {

struct TrialSpecOptions {
  TrialSpec spec;
  bool ignore_targets = false;
  std::vector<std::string> workload_options;  // --workload-option NAME=VALUE
  std::vector<std::string> eval_splits;       // --eval-splits train,validation,test
  std::string clock = "wall";                 // --clock wall|cpu

  // The spec, with stop_at_targets, the clock, the workload options and the eval splits filled in
  // (the budget multiplier stays unset unless given: its default is the ruleset's, which the
  // use-case knows); InputError naming a bad field.
  TrialSpec resolved() const;
  // Options whose defaults differ from AlgoPerf's (a board: the cpu clock, no train-split eval).
  static std::shared_ptr<TrialSpecOptions> with_defaults(std::string clock, std::vector<std::string> eval_splits);
};

void add_trial_spec_options(CLI::App& app, const std::shared_ptr<TrialSpecOptions>& options);

// The options `pacer tune` and `pacer board` share for the size and seeds of their sweeps, bound
// to the request's fields: --studies, --trials, --seed, --sampler-seed, --rules.
struct SweepFields {
  int* studies;
  int64_t* trials;
  uint64_t* seed;
  uint64_t* sampler_seed;
  std::string* rules;
};
void add_sweep_options(CLI::App& app, const SweepFields& fields, const std::string& studies_per,
                       const std::string& trials_note);

// --clock wall|cpu, for the commands that time trials without the other trial options (targets,
// probe); parse_clock_option: InputError naming --clock.
void add_clock_option(CLI::App& app, std::string& clock);
ClockKind parse_clock_option(const std::string& text);

// The point a run trains with: none under --self-tuning (which takes no --hparams/--set:
// InputError), else --hparams FILE (its warnings printed when `warn`) with each --set NAME=VALUE
// over it.
std::optional<Hyperparameters> point_from_options(bool self_tuning, const std::string& hparams_file,
                                                  const std::vector<std::string>& assignments, bool warn = true);
// Its first check alone: --self-tuning with --hparams or --set is refused (InputError).
void check_self_tuning_takes_no_point(bool self_tuning, const std::string& hparams_file,
                                      const std::vector<std::string>& assignments);
// Its warnings, on stderr.
void print_point_warnings(const std::vector<std::string>& warnings);

// --checkpoint-every: "N" steps or "Ts" seconds ("30s", "5m", "1h"); empty: none. Sets the
// policy's every_steps and every_sec (one of them 0). InputError naming the option otherwise.
void parse_checkpoint_every(const std::string& text, CheckpointPolicy& policy);

}  // namespace pacer::cli
