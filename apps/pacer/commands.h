#pragma once
// Sub-commands of the pacer CLI: each registers its options and returns the action to run.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "catalog/algorithm_infos.h"

namespace pacer::cli {

using Action = std::function<int()>;

// The infos of the algorithms -a names (every one when none is named): the light pacer reads the
// catalog; pacer-train also loads plugins and Python submissions.
using AlgorithmInfosOf = std::vector<AlgorithmInfo> (*)(const std::vector<std::string>& values);
Action add_list_command(CLI::App& app, AlgorithmInfosOf infos_of);
// run re-runs itself for an untrusted algorithm (contained_run.h), so it gets the command line;
// `train` runs the trial (pacer-train's; null in the light pacer, which checks the arguments and
// hands the trial on).
struct RunArgs;
Action add_run_command(CLI::App& app, int argc, char** argv, int (*train)(RunArgs&));
Action add_score_command(CLI::App& app);
Action add_report_command(CLI::App& app);
// tune re-runs itself as worker processes, so it gets the original command line.
Action add_tune_command(CLI::App& app, int argc, char** argv);
// board, like tune, re-runs itself as worker processes.
Action add_board_command(CLI::App& app, int argc, char** argv);
Action add_study_command(CLI::App& app);
Action add_launch_command(CLI::App& app);
// targets and scale: the light pacer reads a finished one's results from the store (--no-run);
// pacer-train also gives what trains (null in the light pacer: the command is handed on).
struct TargetsArgs;
Action add_targets_command(CLI::App& app, int (*train)(TargetsArgs&));
struct ScaleTraining;
Action add_scale_command(CLI::App& app, const ScaleTraining* training);
Action add_probe_command(CLI::App& app);
Action add_analyze_command(CLI::App& app);
Action add_check_command(CLI::App& app);
Action add_serve_command(CLI::App& app);
// Hidden: the process of one contained trial (tune/contained_trial.h).
Action add_contained_trial_command(CLI::App& app);

}  // namespace pacer::cli
