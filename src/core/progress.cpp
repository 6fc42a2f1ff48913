#include "core/progress.h"

#include <unistd.h>

#include <chrono>

namespace pacer {
namespace {
double wall_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

Progress::Mode Progress::auto_detect() { return ::isatty(STDERR_FILENO) ? Mode::terminal : Mode::lines; }

void Progress::update(const std::string& status) {
  if (mode_ != Mode::terminal) return;
  double now = wall_seconds();
  if (now - last_draw_ < 0.1) return;  // a redraw per 100 ms is plenty and keeps the step loop lean
  last_draw_ = now;
  std::fprintf(out_, "\r\033[2K%s", status.c_str());
  std::fflush(out_);
  bar_visible_ = true;
}

void Progress::log(const std::string& line) {
  if (mode_ == Mode::quiet) return;
  if (bar_visible_) {
    std::fprintf(out_, "\r\033[2K");
    bar_visible_ = false;
    last_draw_ = -1.0;
  }
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void Progress::finish() {
  if (bar_visible_) {
    std::fprintf(out_, "\n");
    std::fflush(out_);
    bar_visible_ = false;
  }
}

}  // namespace pacer
