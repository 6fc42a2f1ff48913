#pragma once
// What the two programs share: the table of commands (names and descriptions: `pacer --help`
// lists them all), parsing, one-line error messages and exit codes. The light `pacer` (main.cpp)
// has the commands that only read and hands the others, with the whole command line, to the
// training program (training_program.h); `pacer-train` (train_main.cpp) has every command.
//
//   return pacer::cli::run_cli(argc, argv, {{"score", pacer::cli::add_score_command}, ...});
#include <functional>
#include <map>
#include <string>

#include "commands.h"

namespace pacer::cli {

using CommandAdders = std::map<std::string, std::function<Action(CLI::App&)>>;

// Parses the command line and runs the command. A command of the table without an adder here runs
// in the training program (so does one whose action throws NeedsTrainingProgram).
int run_cli(int argc, char** argv, const CommandAdders& adders);

}  // namespace pacer::cli
