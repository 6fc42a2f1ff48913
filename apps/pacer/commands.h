#pragma once
// The one shape of a pacer command, in both programs: an adder registers the command's options on
// its CLI11 subcommand and returns the action that runs it. Every adder takes the same context:
// the command line (for commands that re-run themselves: run's contained copy, tune's and board's
// workers) and the training layer, which only pacer-train has (training_layer.h; null in the light
// pacer). An action ends with an exit status or hands its command line on to pacer-train.
//
//   Action add_report_command(CLI::App& app, const CommandContext& context);
//   return Outcome::hand_on("'./libx.so' is loaded by the training program");   // in an action
//   return 0;                                                                   // exit status 0
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>

namespace pacer::cli {

// What a command's action ends with: an exit status (an int converts), or its command line handed
// to the training program (a light command that finds it needs LibTorch, e.g. `pacer list -a
// ./libx.so`, which loads the plugin), with why.
class Outcome {
 public:
  Outcome(int exit_status) : exit_status_(exit_status) {}  // NOLINT: `return 0;` in an action
  static Outcome hand_on(std::string why) {
    Outcome o(0);
    o.hand_on_ = true;
    o.why_ = std::move(why);
    return o;
  }
  bool handed_on() const { return hand_on_; }
  int exit_status() const { return exit_status_; }
  const std::string& why() const { return why_; }

 private:
  int exit_status_ = 0;
  bool hand_on_ = false;
  std::string why_;
};

using Action = std::function<Outcome()>;

class TrainingLayer;
struct CommandContext {
  int argc = 0;
  char** argv = nullptr;
  const TrainingLayer* training = nullptr;  // pacer-train's; null in the light pacer
};
using CommandAdder = Action (*)(CLI::App& app, const CommandContext& context);

// The commands with a light half, in both programs (each hands on what needs the training layer
// when it has none).
Action add_list_command(CLI::App& app, const CommandContext& context);
Action add_run_command(CLI::App& app, const CommandContext& context);
Action add_score_command(CLI::App& app, const CommandContext& context);
Action add_report_command(CLI::App& app, const CommandContext& context);
Action add_study_command(CLI::App& app, const CommandContext& context);
Action add_analyze_command(CLI::App& app, const CommandContext& context);
Action add_targets_command(CLI::App& app, const CommandContext& context);
Action add_scale_command(CLI::App& app, const CommandContext& context);
Action add_serve_command(CLI::App& app, const CommandContext& context);

// The commands that only train: pacer-train's (its training layer gives them to the table).
Action add_tune_command(CLI::App& app, const CommandContext& context);
Action add_board_command(CLI::App& app, const CommandContext& context);
Action add_launch_command(CLI::App& app, const CommandContext& context);
Action add_probe_command(CLI::App& app, const CommandContext& context);
Action add_check_command(CLI::App& app, const CommandContext& context);
// Hidden: the process of one contained trial (tune/contained_trial.h), and the one that describes
// algorithm files (contained_declarations.h).
Action add_contained_trial_command(CLI::App& app, const CommandContext& context);
Action add_describe_algorithms_command(CLI::App& app, const CommandContext& context);

}  // namespace pacer::cli
