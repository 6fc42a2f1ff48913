#pragma once
// `pacer scale`'s arguments and output, shared by its two halves: the light pacer reads the
// scaling study from the store (--no-run, scale_command.cpp); pacer-train runs it
// (scale_training.cpp).
#include <string>
#include <vector>

#include "scale/scale_request.h"
#include "scale/scaling_study.h"

namespace pacer::cli {

// What the options bind: the library's request, plus what only this process needs.
struct ScaleArgs {
  ScaleRequest request;
  std::string store = "runs/scale.db", out;
  int threads = 0;
  bool quiet = false, json = false, no_run = false;
  // Stop a trial once it can no longer lower its study's steps-to-result (run/racing.h,
  // stop_when_outraced_to_goal): the studies' results and best trials are unchanged, the trials'
  // own outcomes are not (a stopped trial may have reached later).
  bool race = false;
};

// The table (or JSON) on stdout and, with --out, the files.
void print_scaling_report(const ScaleArgs& a, const ScalingReport& report);

// pacer-train's (scale_training.cpp; its training layer calls them): the whole study; the plugins
// and Python submissions of -a declared from a contained process (never loaded here).
int run_scale(const ScaleArgs& a);
void declare_scale_algorithms(const std::vector<std::string>& values);

}  // namespace pacer::cli
