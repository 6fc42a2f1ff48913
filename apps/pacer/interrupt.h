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
// SIGNAL sets the same flag every time it arrives and never counts as a second Ctrl-C: for a
// parent-death signal, which Linux may deliver once per thread of the dying parent.
void install_stop_signal(int signal_number);

}  // namespace pacer::cli
