// pacer: measure, compare and tune training algorithms by time-to-result. This is the light
// program: the commands that read (list, score, report, study, analyze, serve, and targets or
// scale with --no-run) run here without LibTorch; the ones that train run in pacer-train
// (training_program.h), which a command here without a training layer hands on. `pacer run`'s
// arguments are checked here first, and the contained copy of an untrusted algorithm's trial is
// waited for from here.
#include "cli_main.h"

int main(int argc, char** argv) { return pacer::cli::run_cli(argc, argv, /*training=*/nullptr); }
