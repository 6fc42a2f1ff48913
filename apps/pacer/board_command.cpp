// pacer board: every algorithm of a list through a suite under the benchmark's rulesets, in one study store,
// resumable, with progress, an ETA, a deadline; then each part's leaderboards (scores by seconds and steps).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "board_running.h"
#include "commands.h"
#include "input_guards.h"
#include "trial_spec_options.h"
#include "worker_processes.h"
#include "contained_declarations.h"
#include "core/deadline_watch.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "report/board_outputs.h"
#include "run/board_worker.h"
#include "runtime/torch_runtime.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/board_progress_reporter.h"
#include "tune/board_request.h"

namespace pacer::cli {
namespace {

struct BoardArgs {
  BoardRequest request;
  std::string out = "runs/board";
  int bootstrap = 1000;
  double max_hours = 0.0, progress_every = 0.0;
  bool no_run = false, quiet = false, until_separated = false;
  int max_studies = 0;  // --until-separated's last look (0: the board's studies + 3)
  std::shared_ptr<LocalWorkerArgs> workers = local_worker_args("runs/board.db", 2, 1);  // 2 of 1 thread each
  // A board's times must not bend with whatever else runs on the machine (the cpu clock); scoring
  // reads only validation and test (the train split's eval was a third of the eval time).
  std::shared_ptr<TrialSpecOptions> trial = TrialSpecOptions::with_defaults("cpu", {"validation", "test"});
};

int run_board_command(BoardArgs* a, const std::vector<std::string>& base_args) {
  const auto started = DeadlineWatch::Steady::now();
  a->request.trial = a->trial->resolved();
  // Plugins, Python submissions: declared from a contained process, never loaded here.
  declare_algorithm_files(named_algorithms(a->request), contained_describer(a->request.trial.clock));
  const BoardSetup setup = make_board_setup(a->request);  // before the store exists
  if (a->until_separated)
    return run_until_separated_command({*a->workers, a->out, a->bootstrap, a->max_hours, a->quiet, a->max_studies,
                                        a->no_run, a->trial->spec.device}, setup, base_args, started);
  prepare_output_folder(a->out, "--out");  // before any trial: a file there (the store?) fails now, not at the end
  if (!a->no_run) resolve_device(a->trial->spec.device), make_store_folder(a->workers->store);
  StudyStore store(a->workers->store, a->no_run ? StudyStoreOptions::reading() : StudyStoreOptions{});
  const BoardPlan plan = a->no_run ? find_board(store, setup.spec) : plan_board(store, setup.spec);  // --no-run: reads only
  auto [status, deadline_hit] = a->no_run ? std::pair{0, false} : run_board_workers({*a->workers, a->quiet, a->progress_every, a->max_hours}, setup, plan, store, base_args, started);
  if (a->workers->is_worker()) return status;
  // ---- Outputs: what the store holds now, complete or not. The bootstrap takes tens of seconds.
  if (a->bootstrap > 0 && !a->quiet) std::fprintf(stderr, "pacer board: stability: bootstrap over studies, %d resamples\n", a->bootstrap);
  const BoardResults results = board_results(store, plan, setup, a->bootstrap);
  const std::string wrote = write_board_outputs(results, a->out);
  if (!a->quiet) std::fputs(results.markdown().c_str(), stdout);
  print_newcomer_verdicts(setup, results, store.path());  // with --against: its rank and verdicts
  std::printf("%s\n", wrote.c_str());
  if (results.progress.done < results.progress.total) {
    const char* why = deadline_hit ? "the --max-hours deadline passed" : status == 130 ? "interrupted" : "not finished";
    std::fprintf(stderr, "%s\n", board_unfinished_line(results.progress, why).c_str());
    if (status == 0 && !deadline_hit && !a->no_run) status = 1;  // a worker failed
  }
  return status;
}

// What the board is: bound straight to the request.
void add_board_request_options(CLI::App& app, const std::shared_ptr<BoardArgs>& a) {
  BoardRequest& r = a->request;
  app.add_option("-a,--algorithm", r.algorithms,
                 "Algorithms on the board (repeatable, comma-separated; default: every built-in of pacer list)")
      ->delimiter(',');
  app.add_option_function<std::string>("--suite", [a](const std::string& v) { a->request.suite = v; },
      "Workload suite (see pacer list; default: board; with --against: the workloads of that board)");
  app.add_option("-w,--workload", r.workloads, "Workloads instead of --suite (repeatable)")->delimiter(',');
  app.add_option_function<std::vector<std::string>>("--rulesets", [a](const std::vector<std::string>& v) {
    a->request.rulesets = v; }, "Parts to run: self, external (comma-separated; default: both; with --against: external)")
      ->delimiter(',');
  app.add_option_function<int>("--reruns", [a](const int& v) { a->request.reruns = v; },
      "Extra external runs with other seeds (--seed + k, --sampler-seed + k; default 1; with --against: 0)")
      ->check(non_negative_number());
  add_sweep_options(app, {&r.studies, &r.trials, &r.seed, &r.sampler_seed, &r.rules}, "algorithm x workload", "");
  app.add_option("--spaces", r.spaces_dir, "Folder of the search spaces, <folder>/<algorithm>.json")->capture_default_str();
  app.add_option("--space", r.spaces, "A space for one algorithm instead of its shipped one: ALGORITHM=FILE (repeatable)");
  add_pairing_options(app, r, a->until_separated, a->max_studies);
  app.add_option("--name", r.name, "The name this run's one algorithm is scored under (default: the algorithm's)");
}

// Where and how this command runs it: the store, the outputs, the workers, the deadline.
void add_board_process_options(CLI::App& app, const std::shared_ptr<BoardArgs>& a) {
  add_local_worker_options(app, a->workers, "(default 1)");
  app.add_option("-o,--out", a->out, "Folder of the outputs (per part: seconds/ and steps/ score files, charts, "
                                     "report.html; board.md, step_costs.csv and stability.json)")->capture_default_str();
  app.add_option("--max-hours", a->max_hours,
      "Stop cleanly after this many hours (the running trials are re-run on resume); 0: no deadline")->check(non_negative_number());
  app.add_option("--progress-every", a->progress_every, "Seconds between progress lines (default 60; 15 on a terminal)")
      ->check(positive_number());
  app.add_flag("--no-run", a->no_run, "Only write the outputs from what the store holds");
  app.add_option("--bootstrap", a->bootstrap, "Resamples of the bootstrap over studies behind the stability tables (0: none)")
      ->check(non_negative_number())->capture_default_str();
  app.add_flag("-q,--quiet", a->quiet, "No per-trial lines");
}

}  // namespace

Action add_board_command(CLI::App& app, const CommandContext& context) {
  auto a = std::make_shared<BoardArgs>();
  add_board_request_options(app, a);
  add_board_process_options(app, a);
  add_trial_spec_options(app, a->trial);

  const std::vector<std::string> base_args = worker_base_args(context.argc, context.argv);
  return [a, base_args]() -> int { return run_board_command(a.get(), base_args); };
}

}  // namespace pacer::cli
