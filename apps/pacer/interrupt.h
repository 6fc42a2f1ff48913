#pragma once
// Ctrl-C for long-running commands: the first SIGINT, SIGTERM or SIGHUP sets the returned flag (the
// command finishes its current step or trial cleanly and writes what it has); the second one
// takes the default action at once.
//
//   const std::atomic<bool>& stop = pacer::cli::install_interrupt_handler();
//   options.stop_requested = &stop;
#include <atomic>

namespace pacer::cli {

const std::atomic<bool>& install_interrupt_handler();

}  // namespace pacer::cli
