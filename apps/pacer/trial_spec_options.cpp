#include "trial_spec_options.h"

#include "input_guards.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"

namespace pacer::cli {

TrialSpec TrialSpecOptions::resolved() const {
  TrialSpec s = spec;
  s.stop_at_targets = !ignore_targets;
  s.clock = parse_clock_option(clock);
  s.workload_options = parse_workload_options(workload_options);
  s.eval_splits.clear();
  for (const auto& name : eval_splits) {
    EvalSplit split;
    try {
      split = parse_eval_split(name);
    } catch (const InputError& e) {
      throw InputError(std::string("--eval-splits: ") + e.what());
    }
    if (std::find(s.eval_splits.begin(), s.eval_splits.end(), split) == s.eval_splits.end()) s.eval_splits.push_back(split);
  }
  // One spelling per choice (the splits are part of a study's identity): reference order, and all
  // three is the default.
  std::vector<EvalSplit> canonical;
  for (EvalSplit split : {EvalSplit::train, EvalSplit::validation, EvalSplit::test}) {
    if (std::find(s.eval_splits.begin(), s.eval_splits.end(), split) != s.eval_splits.end()) canonical.push_back(split);
  }
  s.eval_splits = canonical.size() == 3 ? std::vector<EvalSplit>{} : canonical;
  const bool validation = s.eval_splits.empty() ||
                          std::find(s.eval_splits.begin(), s.eval_splits.end(), EvalSplit::validation) != s.eval_splits.end();
  if (!validation && s.stop_at_targets) {
    throw InputError("--eval-splits: the validation split decides time to target; include it or add --ignore-targets");
  }
  s.validate();
  return s;
}

void add_trial_spec_options(CLI::App& app, const std::shared_ptr<TrialSpecOptions>& o) {
  TrialSpec& s = o->spec;
  app.add_option("--eval-every", s.eval_every_steps, "Evaluate every N steps instead of every eval period (seconds)")
      ->check(positive_number());
  app.add_option("--max-steps", s.max_steps, "Stop each trial after N steps")->check(positive_number());
  app.add_option_function<int64_t>(
         "--batch-size", [o](const int64_t& v) { o->spec.batch_size = v; }, "Override the algorithm's global batch size")
      ->check(positive_number());
  app.add_option_function<double>(
         "--budget", [o](const double& v) { o->spec.time_budget = v; },
         "Time budget per trial in seconds (default: the workload's x the multiplier)")
      ->check(positive_number());
  app.add_option_function<double>(
         "--budget-multiplier", [o](const double& v) { o->spec.budget_multiplier = v; },
         "Multiply the workload's budget (default 1; self-tuning: the rules', 1.5 under v0.6)")
      ->check(positive_number());
  app.add_option("--device", s.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--data-dir", s.data_dir,
                 "Fashion-MNIST folder (default: $PACER_DATA_DIR or /usr/share/datasets/fashion-mnist)");
  app.add_option("--workload-option", o->workload_options,
                 "Change a model option the workload declares (NAME=VALUE, repeatable; see pacer list), e.g. "
                 "activation=tanh or width=256")
      ->type_name("NAME=VALUE");
  // A command with its own default (the board's validation,test) says so in the help.
  std::string splits_default = "all three, as AlgoPerf";
  if (!o->eval_splits.empty()) splits_default = CLI::detail::join(o->eval_splits, ",");
  app.add_option("--eval-splits", o->eval_splits,
                 "Splits each eval measures (comma-separated: train, validation, test; default " + splits_default +
                     "). Fewer splits make evals cheaper; test time to target needs test")
      ->delimiter(',')
      ->type_name("SPLITS");
  add_clock_option(app, o->clock);
  app.add_flag("--ignore-targets", o->ignore_targets,
               "Do not stop when the targets are reached: train to the budget or --max-steps (target setting)");
}

void add_sweep_options(CLI::App& app, const SweepFields& f, const std::string& studies_per,
                       const std::string& trials_note) {
  app.add_option("--studies", *f.studies, "Studies per " + studies_per + " (default: the rules preset's)")
      ->check(positive_number());
  app.add_option("--trials", *f.trials, "Trials per external study (default 5)" + trials_note)->check(positive_number());
  app.add_option("--seed", *f.seed, "Base seed of the trials (each trial: derived from seed, study, trial)")
      ->capture_default_str();
  app.add_option("--sampler-seed", *f.sampler_seed, "Seed of the sampler and of the recorded shuffle of its points")
      ->capture_default_str();
  app.add_option("--rules", *f.rules, "Rules preset: v0.6 (default; 3 studies, self-tuning budget x1.5) or v0.5 (5, x3)");
}

void add_clock_option(CLI::App& app, std::string& clock) {
  app.add_option("--clock", clock,
                 "What submission time is measured by: wall (elapsed time, as AlgoPerf) or cpu (this process's CPU "
                 "time, which other jobs on the machine barely bend; compare runs with equal --threads)")
      ->capture_default_str()
      ->type_name("wall|cpu");
}

ClockKind parse_clock_option(const std::string& text) {
  try {
    return parse_clock_kind(text);
  } catch (const InputError& e) {
    throw InputError(std::string("--clock: ") + e.what());
  }
}

std::shared_ptr<TrialSpecOptions> TrialSpecOptions::with_defaults(std::string clock,
                                                                   std::vector<std::string> eval_splits) {
  auto options = std::make_shared<TrialSpecOptions>();
  options->clock = std::move(clock);
  options->eval_splits = std::move(eval_splits);
  return options;
}

void check_self_tuning_takes_no_point(bool self_tuning, const std::string& hparams_file,
                                      const std::vector<std::string>& assignments) {
  if (self_tuning && (!hparams_file.empty() || !assignments.empty()))
    throw InputError("--self-tuning takes no hyperparameters (--hparams/--set)");
}

void print_point_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
}

std::optional<Hyperparameters> point_from_options(bool self_tuning, const std::string& hparams_file,
                                                  const std::vector<std::string>& assignments, bool warn) {
  check_self_tuning_takes_no_point(self_tuning, hparams_file, assignments);
  if (self_tuning) return std::nullopt;
  std::vector<std::string> warnings;
  Hyperparameters point = Hyperparameters::from_file_and_assignments(hparams_file, assignments, &warnings);
  if (warn) print_point_warnings(warnings);
  return point;
}

void parse_checkpoint_every(const std::string& text, CheckpointPolicy& policy) {
  policy.every_steps = 0;
  policy.every_sec = 0.0;
  if (text.empty()) return;
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const double scale = unit == "s" ? 1.0 : unit == "m" ? 60.0 : unit == "h" ? 3600.0 : 0.0;
  if (used == 0 || !(value > 0) || (!unit.empty() && scale == 0.0) ||
      (unit.empty() && value != static_cast<double>(static_cast<int64_t>(value)))) {
    throw InputError("--checkpoint-every: '" + text + "' is neither a number of steps (500) nor a time (30s, 5m, 1h)");
  }
  if (unit.empty()) {
    policy.every_steps = static_cast<int64_t>(value);
  } else {
    policy.every_sec = value * scale;
  }
}

}  // namespace pacer::cli
