#pragma once
// The training program, pacer-train: every command, with LibTorch. The light `pacer` starts in a
// few milliseconds because it does not load LibTorch; it hands a command that trains (run, tune,
// board, scale, launch, targets, probe, check) to pacer-train with the same arguments, so a user
// still types one `pacer`.
//
//   if (trains) return pacer::cli::exec_training_program(argc, argv);   // returns only on failure
#include <string>

namespace pacer::cli {

// $PACER_TRAINING_PROGRAM, else pacer-train beside this executable, else ../libexec/pacer/
// pacer-train from it (an install); empty when none is there.
std::string training_program_path();

// Replaces this process with the training program, given the same arguments. Returns only when it
// cannot (not installed, not executable), having said so with `why` the command needs it (a light
// command's Outcome::hand_on): the exit status to use (1).
int exec_training_program(int argc, char** argv, const std::string& why = "");

}  // namespace pacer::cli
