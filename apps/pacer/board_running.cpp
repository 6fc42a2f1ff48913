#include "board_running.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "input_guards.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "runtime/torch_runtime.h"
#include "report/board_outputs.h"
#include "run/board_worker.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/board_progress_reporter.h"
#include "tune/until_separated.h"

namespace pacer::cli {
namespace {

void print_plan(const UntilSeparated& u, const std::string& store) {
  std::string against;
  for (const auto& o : u.opponents) against += (against.empty() ? "" : " and ") + o;
  std::fprintf(stderr, "pacer board: %s against %s until separated: looks at", u.newcomer.c_str(), against.c_str());
  for (size_t l = 0; l < u.plan.studies.size(); ++l)
    std::fprintf(stderr, "%s %d studies (alpha %.4f)", l ? "," : "", u.plan.studies[l], u.plan.alpha[l]);
  std::fprintf(stderr, "; store %s\n", store.c_str());
}

}  // namespace

std::pair<int, bool> run_board_workers(const BoardWorkersArgs& a, const BoardSetup& setup, const BoardPlan& plan,
                                       const StudyStore& store, const std::vector<std::string>& base_args,
                                       DeadlineWatch::Steady::time_point started) {
  const LocalWorkerArgs& w = a.workers;
  std::optional<BoardProgressReporter> reporter;
  if (!w.is_worker())
    std::fprintf(stderr, "%s\n", board_headline(setup, plan, board_progress(store, plan), store.path(), w.workers).c_str());
  if (!w.is_worker() && !a.quiet) reporter.emplace(w.store, plan, w.workers, a.progress_every);
  WorkerOptions options = w.worker_options(nullptr, nullptr);
  options.race_bounds = setup.race_bounds;
  const LocalWorkersRun run = run_local_workers(w, base_args, a.quiet, DeadlineWatch::after_hours(started, a.max_hours),
                                                options, [&](const WorkerOptions& o) { return run_board_worker(w.store, plan, o); });
  const bool interrupted = w.is_worker() ? run.report.interrupted && !run.deadline_hit : run.interrupted;
  return {interrupted ? 130 : 0, run.deadline_hit};
}

int run_until_separated_command(const UntilSeparatedArgs& a, const BoardSetup& setup,
                                const std::vector<std::string>& base_args, DeadlineWatch::Steady::time_point started) {
  if (a.no_run) throw InputError("--until-separated runs studies; leave out --no-run (or --until-separated)");
  const UntilSeparated u =
      until_separated_setup(setup, a.max_studies > 0 ? a.max_studies : setup.spec.studies + 3);  // before the store
  resolve_device(a.device);
  prepare_output_folder(a.out, "--out");
  make_store_folder(a.workers.store);
  StudyStore store(a.workers.store);
  const LocalWorkerArgs& w = a.workers;
  if (!w.is_worker()) print_plan(u, store.path());
  WorkerOptions options = w.worker_options(nullptr, nullptr);
  // The expected pace reads every trial's cost: a trial racing stopped would be an upper bound.
  options.race = options.race_cutoff = false;
  const LocalWorkersRun run = run_local_workers(
      w, base_args, a.quiet, DeadlineWatch::after_hours(started, a.max_hours), options, [&](const WorkerOptions& o) {
        WorkerReport total;
        // One process says each look's decisions while the run goes on: this one when it runs
        // alone, else the first worker (every worker judges the same looks from the store).
        const bool says = !w.is_worker() || w.worker_label == "worker 1";
        run_until_separated(
            store, setup, u, [&](const BoardPlan& plan) { total = run_board_worker(w.store, plan, o); },
            [&] { return o.stop_requested && *o.stop_requested; },
            [&](const UntilSeparatedResult& r) {
              if (says) std::fprintf(stderr, "pacer board: %s\n", look_line(r, u).c_str());
            });
        return total;
      });
  if (w.is_worker()) return run.report.interrupted && !run.deadline_hit ? 130 : 0;
  // The copies may have run every look: walk them again from the store (nothing left to run), to
  // the same decisions, since each is a function of the finished trials.
  const UntilSeparatedResult result = run_until_separated(store, setup, u, [](const BoardPlan&) {}, [] { return false; });
  BoardSetup final = setup;
  final.spec.studies = result.looks > 0 ? u.plan.studies[result.looks - 1] : setup.spec.studies;
  const BoardPlan plan = find_board(store, final.spec);
  const BoardResults results = board_results(store, plan, final, a.bootstrap);
  const std::string wrote = write_board_outputs(results, a.out);
  if (!a.quiet) std::fputs(results.markdown().c_str(), stdout);
  for (const auto& line : newcomer_rank_lines(results, final.names)) std::printf("%s\n", line.c_str());
  for (const auto& line : until_separated_lines(result, u)) std::printf("%s\n", line.c_str());
  std::printf("%s\n", wrote.c_str());
  if (run.deadline_hit)
    std::fprintf(stderr, "pacer board: the --max-hours deadline passed; the verdicts are those of the last finished look\n");
  return run.interrupted ? 130 : 0;
}

void add_pairing_options(CLI::App& app, BoardRequest& request, bool& until_separated, int& max_studies) {
  app.add_flag_function("--paired", [&request](std::int64_t) { request.paired = true; },
      "Paired studies: every algorithm's study j, trial i draws the same point of one quasi-random cube (the "
      "learning rate on one coordinate everywhere) beside the same training seed (docs/scoring.md, \"Paired runs\")");
  app.add_option("--against", request.against, "A board to race against and rank among: its stores or log folders "
                 "(repeatable). Its times set the 4x cut-off, and the outputs score this run's algorithms beside its own");
  app.add_flag("--until-separated", until_separated,
               "With --against and one algorithm: its verdicts against NAdamW and the board's best, decided at looks "
               "fixed in advance (one more study each look, to the comparisons still undecided; docs/scoring.md)");
  app.add_option("--max-studies", max_studies, "--until-separated: the studies of the last look (default: the "
                 "board's + 3)")->check(positive_number());
}

void print_newcomer_verdicts(const BoardSetup& setup, const BoardResults& results, const std::string& store) {
  if (!setup.against) return;
  for (const auto& line : newcomer_rank_lines(results, setup.names)) std::printf("%s\n", line.c_str());
  const auto& board = setup.against->names;
  if (setup.spec.algorithms.size() != 1 || setup.spec.self_tuning || setup.spec.reruns != 0 ||
      results.progress.done == 0 || std::find(board.begin(), board.end(), "nadamw") == board.end())
    return;
  const UntilSeparated u = until_separated_setup(setup, setup.spec.studies);
  for (const auto& line : until_separated_lines(judge_newcomer(store, setup, u), u)) std::printf("%s\n", line.c_str());
}

}  // namespace pacer::cli
