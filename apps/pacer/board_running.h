#pragma once
// How `pacer board` runs its trials: the board's workers (this process and its copies), and a
// newcomer ranked against a board (`--against`): its verdicts by the expected pace against NAdamW
// and the board's best, judged once from what the store holds, or, with --until-separated, at the
// looks of tune/until_separated.h run by every worker process.
//
//   auto [status, deadline_hit] = run_board_workers({workers, quiet, 0, 2.0}, setup, plan, store, base_args, started);
//   print_newcomer_verdicts(setup, results, store.path());   // after a plain --against run
//   return run_until_separated_command({workers, out, 1000, 1.0, false, 0}, setup, base_args, started);
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "worker_processes.h"
#include "core/deadline_watch.h"
#include "store/study_store.h"
#include "tune/board_request.h"

namespace pacer::cli {

struct BoardWorkersArgs {
  const LocalWorkerArgs& workers;
  bool quiet = false;
  double progress_every = 0.0, max_hours = 0.0;
};

// This process's share of the board (or, with --workers, the workers' and what a dead one left) until
// done, interrupted or past --max-hours: the exit status so far and whether the deadline stopped it.
std::pair<int, bool> run_board_workers(const BoardWorkersArgs& a, const BoardSetup& setup, const BoardPlan& plan,
                                       const StudyStore& store, const std::vector<std::string>& base_args,
                                       DeadlineWatch::Steady::time_point started);

struct UntilSeparatedArgs {
  const LocalWorkerArgs& workers;
  std::string out;
  int bootstrap = 1000;
  double max_hours = 0.0;
  bool quiet = false;
  int max_studies = 0;  // 0: the board's studies + 3
  bool no_run = false;   // refused: the looks run studies
  std::string device;    // --device, resolved before the store is made
};

// --paired, --against, --until-separated and --max-studies, bound to the request and the two values.
void add_pairing_options(CLI::App& app, BoardRequest& request, bool& until_separated, int& max_studies);

// The looks, then the board's outputs over the studies run and the verdict lines; the exit status.
int run_until_separated_command(const UntilSeparatedArgs& a, const BoardSetup& setup,
                                const std::vector<std::string>& base_args, DeadlineWatch::Steady::time_point started);

// With --against: prints the newcomer's rank lines, then its verdicts against NAdamW and the
// board's best (Holm at 5% over the two) when the run is one algorithm's external part against a
// board that has NAdamW.
void print_newcomer_verdicts(const BoardSetup& setup, const BoardResults& results, const std::string& store);

}  // namespace pacer::cli
