#include "interrupt.h"

#include <signal.h>

namespace pacer::cli {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signals{0};

void on_interrupt(int signal_number) {
  g_stop = true;
  if (g_signals.fetch_add(1) >= 1) {
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
  }
}

void on_stop_signal(int) { g_stop = true; }

}  // namespace

void install_stop_signal(int signal_number) {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
}

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);  // the terminal closed: stop as cleanly as for Ctrl-C
  return g_stop;
}

}  // namespace pacer::cli
