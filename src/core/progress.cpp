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

bool Progress::wants_update() const {
  // A redraw per 100 ms is plenty and keeps the step loop lean.
  return mode_ == Mode::terminal && wall_seconds() - last_draw_ >= 0.1;
}

void Progress::update(const std::string& status) {
  if (!wants_update()) return;
  last_draw_ = wall_seconds();
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
