#pragma once
// What `pacer serve` shows, computed from one study store (SQLite or PostgreSQL) opened read-only:
// the studies with their progress and a board's ETA, the leaderboard of each part with both of
// its scores and the performance profiles, a study's trials, a trial's evals and curve, and a
// study's playbook analysis. Everything comes from the code the CLI runs (pacer study list,
// pacer score, pacer board, pacer analyze), so the page, the report and the CLI agree.
//
// The store is polled, not watched: a request looks at the store's activity (one cheap query,
// store/study_store.h's StoreActivity) at most every check_every_sec, and what it shows is
// recomputed only when that changed. Scoring a whole board costs a few hundred milliseconds, so
// a leaderboard is recomputed at most every score_every_sec while trials finish. A store that
// disappears, is locked or damaged makes the calls throw StoreUnavailable (the page says so) and
// is opened again on a later call. Torch-free; thread-safe (one lock around the store's reader,
// another around scoring, which reads through a connection of its own).
//
//   pacer::Dashboard board("runs/board.db");
//   board.check();                                    // InputError: not a store (exit 2 at start)
//   std::string overview = board.overview_json();     // what GET /api/overview returns
//   std::string scores = board.leaderboard_json("external", "seconds");
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"

namespace pacer {

struct DashboardOptions {
  double check_every_sec = 1.0;   // how often the store's activity is read (at most)
  double score_every_sec = 30.0;  // how often a leaderboard is rescored while trials finish (at most)
  std::string rules;              // scoring rules preset; empty: the current default
  int busy_timeout_ms = 2000;     // SQLite: how long a read waits for a writer before the page says "locked"
};

// The store cannot be read now (deleted, locked, damaged, server down): a 503 page.
class StoreUnavailable : public Error {
 public:
  using Error::Error;
};

// No study or trial of that id in the store: a 404 page.
class NotFoundError : public Error {
 public:
  using Error::Error;
};

class Dashboard {
 public:
  explicit Dashboard(std::string location, DashboardOptions options = {});
  ~Dashboard();
  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;

  // Opens the store now: InputError as `pacer study list` gives it (missing, not a store, newer
  // schema), for a command to fail with exit 2 before it serves anything.
  void check();
  const std::string& location() const;  // printable (a URI without its password)

  // JSON texts (UTF-8). StoreUnavailable, NotFoundError, InputError (a malformed part or axis).
  std::string overview_json();
  std::string leaderboard_json(const std::string& part, const std::string& time_axis);
  std::string study_json(int64_t study_id);
  std::string trial_json(int64_t trial_id);
  // SVG texts: the performance profiles of a part (as `pacer score --out` draws them), a trial's
  // curve (as `pacer analyze` draws the best trials').
  std::string profile_svg(const std::string& part, const std::string& time_axis);
  std::string trial_curve_svg(int64_t trial_id);
  // `pacer analyze STORE <study>`'s page for one study; an HTML page saying why when it has no
  // finished trial yet.
  std::string analysis_html(int64_t study_id);

  // How many times a leaderboard was scored (tests and the benchmark: the cache works).
  int64_t scorings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pacer
