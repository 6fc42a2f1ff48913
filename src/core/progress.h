#pragma once
// Progress of long-running commands: a one-line bar redrawn in place on a terminal, plain log
// lines (at most one per `min_interval` seconds, plus every explicit `log`) otherwise.
//
//   pacer::Progress progress(pacer::Progress::auto_detect());
//   progress.update("step 120 | 3.1s/60s | val accuracy 0.84");
//   progress.log("eval at step 200: validation/accuracy=0.86");
//   progress.finish();
#include <cstdio>
#include <string>

namespace pacer {

class Progress {
 public:
  enum class Mode { terminal, lines, quiet };
  static Mode auto_detect();  // terminal when stderr is a TTY

  explicit Progress(Mode mode, std::FILE* out = stderr) : mode_(mode), out_(out) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Whether an update() now would be drawn: lets callers skip formatting the status line.
  bool wants_update() const;
  // Status line; redrawn on a terminal, ignored in line mode (use log for lines).
  void update(const std::string& status);
  // A permanent line, printed in every mode but quiet.
  void log(const std::string& line);
  void finish();

 private:
  Mode mode_;
  std::FILE* out_;
  bool bar_visible_ = false;
  double last_draw_ = -1.0;
};

}  // namespace pacer
