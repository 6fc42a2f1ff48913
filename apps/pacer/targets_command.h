#pragma once
// `pacer targets`' arguments, shared by its two halves: the light pacer reads a finished
// procedure's record from the store (--no-run, targets_command.cpp); pacer-train runs the
// procedure (targets_training.cpp).
#include <string>

#include "tune/target_setting.h"

namespace pacer::cli {

struct TargetsArgs {
  std::string workload, store = "runs/targets.db", out, algorithms = "adamw,nadamw,momentum,nesterov";
  std::string device = "auto", data_dir, clock = "wall";
  TargetSettingOptions options;
  int threads = 0;
  bool quiet = false, no_run = false;
};

// The options as the procedure takes them, checked (InputError naming the culprit), sweeps too.
TargetSetter make_target_setter(TargetsArgs& a);

// pacer-train's: the whole procedure over the store, then the record (exit status).
int run_targets(TargetsArgs& a);

}  // namespace pacer::cli
