#pragma once
// The progress lines of a running board: every `every` seconds, from the store (each worker
// process records there), until destroyed.
//
//   pacer::BoardProgressReporter reporter("runs/board.db", plan, /*workers=*/2, /*every=*/60.0);
//   ... run the workers ...
//   // "board: 120/2475 trials done (4.8%; 9 stopped by racing), 2 running; 1h02m elapsed; ETA 9h40m"
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "tune/board.h"

namespace pacer {

// One line: trials done of all, those stopped by racing, running, elapsed, and the remaining
// estimate shared over `workers`.
std::string board_progress_line(const BoardProgress& progress, double elapsed_sec, int workers);

class BoardProgressReporter {
 public:
  // every_sec <= 0: every 15 s on a terminal, else every 60 s (a log file).
  BoardProgressReporter(std::string store, BoardPlan plan, int workers, double every_sec);
  ~BoardProgressReporter();
  BoardProgressReporter(const BoardProgressReporter&) = delete;
  BoardProgressReporter& operator=(const BoardProgressReporter&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace pacer
