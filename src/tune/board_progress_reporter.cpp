#include "tune/board_progress_reporter.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/progress.h"
#include "store/study_store.h"

namespace pacer {

std::string board_progress_line(const BoardProgress& p, double elapsed_sec, int workers) {
  const double percent = p.total > 0 ? 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total) : 0.0;
  const std::string stopped = p.stopped > 0 ? "; " + std::to_string(p.stopped) + " stopped by racing" : "";
  char line[512];
  std::snprintf(line, sizeof line, "board: %lld/%lld trials done (%.1f%%%s), %lld running; %s elapsed; ETA %s",
                static_cast<long long>(p.done), static_cast<long long>(p.total), percent, stopped.c_str(),
                static_cast<long long>(p.running), format_duration(elapsed_sec).c_str(),
                format_duration(p.remaining_trial_sec / std::max(1, workers)).c_str());
  return line;
}

BoardProgressReporter::BoardProgressReporter(std::string store, BoardPlan plan, int workers, double every_sec)
    : thread_([this, store = std::move(store), plan = std::move(plan), workers,
               every_sec = every_sec > 0 ? every_sec : Progress::auto_detect() == Progress::Mode::terminal ? 15.0 : 60.0] {
        const auto start = std::chrono::steady_clock::now();
        StudyStore reader(store, StudyStoreOptions::reading());
        std::unique_lock<std::mutex> lock(mutex_);
        while (!done_) {
          wake_.wait_for(lock, std::chrono::duration<double>(every_sec));
          if (done_) break;
          const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          std::fprintf(stderr, "%s\n", board_progress_line(board_progress(reader, plan), elapsed, workers).c_str());
        }
      }) {}

BoardProgressReporter::~BoardProgressReporter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace pacer
