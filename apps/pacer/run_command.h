#pragma once
// `pacer run`'s arguments, shared by its two halves: the light pacer parses and checks them, then
// hands the command to pacer-train, or, for a Python submission or a plugin, starts the contained
// copy of it as pacer-train and waits (run_command.cpp, no LibTorch in this process); pacer-train
// runs the trial (run_training.cpp).
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/run_request.h"  // the request type alone (a torch-free header; nothing of run/ is linked)
#include "trial_spec_options.h"

namespace pacer::cli {

// What the options bind: the library's request, plus what is parsed or checked here first.
struct RunArgs {
  RunRequest request;
  CLI::Option* clock_option = nullptr;  // given or not: a busy machine may choose the cpu clock
  std::vector<std::string> argv;        // this command line: an untrusted algorithm runs in a copy of it
  std::string hparams_file, adasum_mode = "gradient";
  std::vector<std::string> assignments;
  std::shared_ptr<TrialSpecOptions> trial = std::make_shared<TrialSpecOptions>();
  std::string checkpoint_every;  // "500" (steps) or "30s" (seconds)
  bool resume = false, overwrite = false;
  double trial_limit = 0.0;  // --trial-limit: wall-clock seconds of a contained copy; 0: from the budget
  std::optional<double> goal;  // --goal: stop at the first eval strictly better, instead of at the targets
  std::string goal_metric;     // --metric: the goal's metric (default: validation/<the target metric>)
  // Wall-clock seconds the contained copy of an untrusted algorithm's trial may run: --trial-limit,
  // else 4 x the trial's budget + 120 s (as `pacer tune`'s contained trials). Set by prepare_run.
  double copy_limit_sec = 0.0;
};

// The request from the options, checked (InputError naming the culprit), and the contained
// copy's limit. `warn`: print the warnings (the process that runs the trial does; the light
// pacer, which hands it on, does not).
void prepare_run(RunArgs& a, bool warn);

// pacer-train's: the trial (in a contained copy of itself for untrusted code), its summary and
// its exit status.
int run_trial_command(RunArgs& a);

}  // namespace pacer::cli
