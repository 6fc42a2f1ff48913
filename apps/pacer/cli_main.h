#pragma once
// What the two programs share: the table of commands (names, descriptions, each one's light half
// or "only trains": `pacer --help` lists them all), parsing, one-line error messages and exit
// codes. The light `pacer` (main.cpp) runs it without a training layer and hands the commands that
// need one, with the whole command line, to the training program (training_program.h);
// `pacer-train` (train_main.cpp) runs it with its training layer (training_layer.h).
//
//   return pacer::cli::run_cli(argc, argv, nullptr);          // the light pacer
//   return pacer::cli::run_cli(argc, argv, &training_layer);  // pacer-train
#include "commands.h"

namespace pacer::cli {

// Parses the command line and runs the command. Without `training`, a command that only trains is
// handed on before parsing, and one whose action returns Outcome::hand_on after it.
int run_cli(int argc, char** argv, const TrainingLayer* training);

}  // namespace pacer::cli
