// pacer board: every algorithm of a list through a suite under the benchmark's rulesets, in one
// study store, resumable, with progress, an ETA and a deadline; then each part's leaderboards
// (scores by seconds and by steps, time-to-target tables, profiles, HTML report, Markdown).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "commands.h"
#include "input_guards.h"
#include "interrupt.h"
#include "trial_spec_options.h"
#include "worker_processes.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/process_supervisor.h"
#include "core/spawn_error.h"
#include "report/html_report.h"
#include "report/score_charts.h"
#include "runtime/torch_runtime.h"
#include "score/rules.h"
#include "score/score_outputs.h"
#include "score/store_source.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/board.h"
#include "tune/board_results.h"
#include "tune/board_stability.h"
#include "tune/race_bounds.h"
#include "tune/tuning_worker.h"
#include "workloads/suites.h"

namespace pacer::cli {
namespace {

struct BoardArgs {
  std::vector<std::string> algorithms, workloads, rulesets = {"self", "external"}, spaces, against;
  std::string name;
  std::string suite = "board", spaces_dir = "spaces", store = "runs/board.db", out = "runs/board", rules;
  std::string worker_label;
  int studies = 0, workers = 2, threads = 1, reruns = 1, bootstrap = 1000;
  int64_t trials = 0;
  uint64_t seed = 0, sampler_seed = 0;
  double max_hours = 0.0, lease = 60.0, progress_every = 0.0;
  bool no_race = false, no_run = false, quiet = false;
  std::shared_ptr<TrialSpecOptions> trial = [] {
    auto t = std::make_shared<TrialSpecOptions>();
    t->clock = "cpu";  // a board's times must not bend with whatever else runs on the machine
    // Scoring reads only validation and test; the train split's eval was a third of the eval
    // time (docs/leaderboard.md, "What a board costs").
    t->eval_splits = {"validation", "test"};
    return t;
  }();
};

using Steady = std::chrono::steady_clock;

// Sets `stop` once the user interrupts or the deadline passes; `deadline_hit` says which.
class StopWatch {
 public:
  StopWatch(const std::atomic<bool>& interrupted, std::optional<Steady::time_point> deadline)
      : thread_([this, &interrupted, deadline] {
          std::unique_lock<std::mutex> lock(mutex_);
          while (!done_) {
            if (interrupted) stop = true;
            if (deadline && Steady::now() >= *deadline) deadline_hit = stop = true;
            wake_.wait_for(lock, std::chrono::milliseconds(100));
          }
        }) {}
  ~StopWatch() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  std::atomic<bool> stop{false}, deadline_hit{false};

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

// Prints a line on the board's progress every `every` seconds, from the store (each worker
// process writes there), until destroyed.
class ProgressReporter {
 public:
  ProgressReporter(std::string store, BoardPlan plan, int workers, double every)
      : thread_([this, store = std::move(store), plan = std::move(plan), workers, every] {
          const auto start = Steady::now();
          StudyStore reader(store);
          std::unique_lock<std::mutex> lock(mutex_);
          std::optional<int64_t> first_done;
          while (!done_) {
            wake_.wait_for(lock, std::chrono::duration<double>(every));
            if (done_) break;
            const BoardProgress p = board_progress(reader, plan);
            if (!first_done) first_done = p.done;
            const double elapsed = std::chrono::duration<double>(Steady::now() - start).count();
            const double eta = p.remaining_trial_sec / std::max(1, workers);
            std::fprintf(stderr, "board: %lld/%lld trials done (%.1f%%%s), %lld running; %s elapsed; ETA %s\n",
                         static_cast<long long>(p.done), static_cast<long long>(p.total),
                         p.total > 0 ? 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total) : 0.0,
                         p.stopped > 0 ? ("; " + std::to_string(p.stopped) + " stopped by racing").c_str() : "",
                         static_cast<long long>(p.running), format_duration(elapsed).c_str(), format_duration(eta).c_str());
          }
        }) {}
  ~ProgressReporter() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

// One worker's share of the board: phase by phase, moving on when the phase has nothing left to
// claim (other workers finish what they hold), then once more over everything, waiting for the
// trials others still run and taking over any whose worker died.
WorkerReport run_board_worker(const std::string& store, const BoardPlan& plan, WorkerOptions options) {
  WorkerReport total;
  auto add = [&total](const WorkerReport& r) {
    total.trials_run += r.trials_run;
    total.trials_raced += r.trials_raced;
    total.leases_lost += r.leases_lost;
    total.evals_recorded += r.evals_recorded;
    total.trial_seconds += r.trial_seconds;
    total.interrupted = total.interrupted || r.interrupted;
  };
  options.wait_for_others = false;
  for (const auto& phase : plan.phases) {
    if (options.stop_requested && *options.stop_requested) break;
    if (options.progress) options.progress->log((options.label.empty() ? "" : options.label + ": ") + "phase " + phase.label);
    add(run_tuning_worker(store, phase.studies, options));
    if (total.interrupted) return total;
  }
  options.wait_for_others = true;
  if (!(options.stop_requested && *options.stop_requested)) add(run_tuning_worker(store, plan.studies(), options));
  return total;
}

void write_outputs(const std::vector<BoardPartScores>& parts, const BoardProgress& progress,
                   const BoardStepCosts& costs, const BoardStability* stability, const std::string& out) {
  std::filesystem::create_directories(out);
  for (const auto& p : parts) {
    if (!p.seconds || !p.steps) continue;
    const std::string dir = out + "/" + p.part.name;
    write_score_files(*p.seconds, dir + "/seconds");
    write_score_charts(*p.seconds, dir + "/seconds");
    write_score_files(*p.steps, dir + "/steps");
    write_score_charts(*p.steps, dir + "/steps");
    write_report(dir + "/seconds", dir + "/seconds/report.html");
    write_report(dir + "/steps", dir + "/steps/report.html");
  }
  write_file_atomic(out + "/step_costs.csv", step_costs_csv(costs));
  std::string md = board_markdown(parts, progress, &costs);
  if (stability) {
    md += board_stability_markdown(*stability);
    write_file_atomic(out + "/stability.json", board_stability_json(*stability));
  } else {
    std::filesystem::remove(out + "/stability.json");  // an earlier run's would no longer match board.md
  }
  write_file_atomic(out + "/board.md", md);
}

}  // namespace

Action add_board_command(CLI::App& app, int argc, char** argv) {
  auto a = std::make_shared<BoardArgs>();
  app.add_option("-a,--algorithm", a->algorithms,
                 "Algorithms on the board (repeatable, comma-separated; default: every built-in of pacer list)")
      ->delimiter(',');
  CLI::Option* suite_option = app.add_option("--suite", a->suite, "Workload suite (see pacer list; with --against: "
                                                                  "the workloads of that board)")->capture_default_str();
  app.add_option("-w,--workload", a->workloads, "Workloads instead of --suite (repeatable)")->delimiter(',');
  CLI::Option* rulesets_option = app.add_option("--rulesets", a->rulesets, "Parts to run: self, external (comma-separated)")
      ->delimiter(',')->capture_default_str();
  CLI::Option* reruns_option = app.add_option("--reruns", a->reruns, "Extra external runs with other seeds (--seed + k, --sampler-seed + k)")
      ->check(non_negative_number())->capture_default_str();
  app.add_option("--studies", a->studies, "Studies per algorithm x workload (default: the rules preset's)")
      ->check(positive_number());
  app.add_option("--trials", a->trials, "Trials per external study (default 5)")->check(positive_number());
  app.add_option("--seed", a->seed, "Base seed of the trials")->capture_default_str();
  app.add_option("--sampler-seed", a->sampler_seed, "Seed of the samplers")->capture_default_str();
  app.add_option("--spaces", a->spaces_dir, "Folder of the search spaces, <folder>/<algorithm>.json")->capture_default_str();
  app.add_option("--space", a->spaces, "A space for one algorithm instead of its shipped one: ALGORITHM=FILE (repeatable)");
  app.add_option("--rules", a->rules, "Rules preset: v0.6 (default) or v0.5");
  app.add_option("--store", a->store, "Study store: a SQLite file or a postgresql:// URI")->capture_default_str();
  app.add_option("-o,--out", a->out, "Folder of the outputs (per part: seconds/ and steps/ score files, charts, "
                                     "report.html; board.md, step_costs.csv and stability.json)")->capture_default_str();
  app.add_option("--workers", a->workers, "Worker processes on this machine")->check(positive_number())->capture_default_str();
  app.add_option("--threads", a->threads, "Intra-op CPU threads per worker")->check(positive_number())->capture_default_str();
  app.add_option("--max-hours", a->max_hours, "Stop cleanly after this many hours (the running trials are given back "
                                              "and re-run on resume); 0: no deadline")
      ->check(non_negative_number());
  app.add_option("--lease", a->lease, "Seconds a trial stays claimed without a heartbeat")->check(positive_number());
  app.add_option("--progress-every", a->progress_every, "Seconds between progress lines (default 60; 15 on a terminal)")
      ->check(positive_number());
  app.add_option("--against", a->against,
                 "A board to race against and rank among: its stores or log folders (repeatable). Its times "
                 "set the 4x cut-off, and the outputs score this run's algorithms beside its own");
  app.add_option("--name", a->name, "The name this run's one algorithm is scored under (default: the algorithm's)");
  app.add_flag("--no-race", a->no_race, "Run every trial to its target or budget");
  app.add_flag("--no-run", a->no_run, "Only write the outputs from what the store holds");
  app.add_option("--bootstrap", a->bootstrap,
                 "Resamples of the bootstrap over studies behind the stability tables (0: none)")
      ->check(non_negative_number())->capture_default_str();
  app.add_flag("-q,--quiet", a->quiet, "No per-trial lines");
  app.add_option("--worker-label", a->worker_label, "")->group("");
  add_trial_spec_options(app, a->trial);
  // The shared option's help names AlgoPerf's default; the board's is validation and test.
  app.get_option("--eval-splits")
      ->description("Splits each eval measures (comma-separated: train, validation, test; the board's default: "
                    "validation,test, what scoring reads)");

  const std::vector<std::string> base_args = worker_base_args(argc, argv);
  return [a, base_args, rulesets_option, reruns_option, suite_option]() -> int {
    const auto started = Steady::now();
    // ---- The spec, validated before anything is written.
    BoardSpec spec;
    spec.workloads = a->workloads.empty() ? workload_suite(a->suite) : a->workloads;
    std::vector<std::string> algorithms = a->algorithms;
    if (!a->against.empty()) {
      // A newcomer against a board: its external run unless told otherwise.
      if (algorithms.empty()) throw InputError("--against: give the algorithm(s) to rank with -a (a name or a plugin library)");
      if (rulesets_option->count() == 0) a->rulesets = {"external"};
      if (reruns_option->count() == 0) a->reruns = 0;
    }
    if (algorithms.empty()) algorithms = algorithm_names();
    for (auto& name : algorithms) name = resolve_algorithm(name);  // a name or a plugin library
    spec.algorithms = algorithms;
    spec.self_tuning = spec.external = false;
    for (const auto& r : a->rulesets) {
      if (r == "self") spec.self_tuning = true;
      else if (r == "external") spec.external = true;
      else throw InputError("--rulesets: unknown ruleset '" + r + "' (valid: self, external)");
    }
    const RulesPreset& rules = rules_preset(a->rules.empty() ? default_rules_name() : a->rules);
    spec.reruns = spec.external ? a->reruns : 0;
    spec.studies = a->studies > 0 ? a->studies : rules.num_studies;
    spec.trials = a->trials > 0 ? a->trials : kDefaultTrialsPerStudy;
    spec.seed = a->seed;
    spec.sampler_seed = a->sampler_seed;
    spec.spaces_dir = a->spaces_dir;
    for (const auto& s : a->spaces) {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
        throw InputError("--space '" + s + "': give ALGORITHM=FILE");
      spec.space_files[resolve_algorithm(s.substr(0, eq))] = s.substr(eq + 1);
    }
    if (!a->name.empty()) {
      if (spec.algorithms.size() != 1) throw InputError("--name names one algorithm; this run has " +
                                                        std::to_string(spec.algorithms.size()));
      spec.names[spec.algorithms.front()] = a->name;
    }
    std::vector<std::string> names;
    for (const auto& algorithm : spec.algorithms) names.push_back(spec.name_of(algorithm));
    std::optional<BoardSources> against;
    if (!a->against.empty()) {
      against = read_board_sources(a->against);
      // A newcomer runs the board's suite unless told otherwise.
      if (a->workloads.empty() && suite_option->count() == 0) spec.workloads = against->workloads;
    }
    spec.external_trial = a->trial->resolved(default_budget_multiplier(Ruleset::external, rules));
    spec.self_trial = a->trial->resolved(default_budget_multiplier(Ruleset::self, rules));
    validate_board(spec);  // before the store exists
    if (!a->no_run) resolve_device(a->trial->spec.device);
    make_store_folder(a->store);

    StudyStore store(a->store);
    const BoardPlan plan = plan_board(store, spec);
    const bool is_worker = !a->worker_label.empty();
    const bool terminal = Progress::auto_detect() == Progress::Mode::terminal;
    Progress progress(a->quiet ? Progress::Mode::quiet : is_worker ? Progress::Mode::lines : Progress::auto_detect());

    int status = 0;
    bool deadline_hit = false;
    if (!a->no_run) {
      const int threads = set_num_threads(a->threads, 1);
      if (!is_worker) {
        const BoardProgress before = board_progress(store, plan);
        std::fprintf(stderr,
                     "pacer board: %zu algorithms x %zu workloads, parts:", spec.algorithms.size(), spec.workloads.size());
        for (const auto& p : plan.parts) std::fprintf(stderr, " %s", p.name.c_str());
        std::fprintf(stderr, "; %d studies x %lld trials (external); store %s: %lld of %lld trials done; "
                             "estimated %s of trial time left (%s with %d workers)\n",
                     spec.studies, static_cast<long long>(spec.trials), store.path().c_str(),
                     static_cast<long long>(before.done), static_cast<long long>(before.total),
                     format_duration(before.remaining_trial_sec).c_str(),
                     format_duration(before.remaining_trial_sec / a->workers).c_str(), a->workers);
      }
      const std::atomic<bool>& interrupted = install_interrupt_handler();
      std::optional<Steady::time_point> deadline;
      if (a->max_hours > 0)
        deadline = started + std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(a->max_hours * 3600.0));
      StopWatch watch(interrupted, deadline);

      WorkerOptions options;
      options.lease_sec = a->lease;
      options.heartbeat_sec = a->lease / 6.0;
      options.poll_sec = std::min(2.0, options.heartbeat_sec);
      options.stop_requested = &watch.stop;
      options.progress = &progress;
      options.label = a->worker_label;
      options.race = !a->no_race;
      if (against) {
        options.race_bounds = std::make_shared<RaceBounds>(
            board_bounds(*against, rules.name, to_string(spec.external_trial.clock)));
      }

      WorkerReport report;
      bool workers_failed = false;
      {
        std::optional<ProgressReporter> reporter;
        if (!is_worker && !a->quiet)
          reporter.emplace(a->store, plan, a->workers, a->progress_every > 0 ? a->progress_every : terminal ? 15.0 : 60.0);
        if (a->workers > 1 && !is_worker) {
          ProcessSupervisorOptions supervision;
          supervision.stop_others_on_failure = false;
          supervision.poll_interval_sec = 0.05;
          supervision.interrupt_count = [&interrupted] { return interrupted ? 1 : 0; };  // forwarded once
          ProcessSupervisor workers(supervision);
          for (int k = 1; k <= a->workers; ++k) {
            try {
              workers.spawn(worker_process(base_args, k, threads));
            } catch (const SpawnError& e) {
              throw Error(std::string("cannot start a worker process: ") + std::strerror(e.error_number()));
            }
          }
          workers_failed = workers.run() != 0;
          if (workers_failed && !watch.stop) report = run_board_worker(a->store, plan, options);
        } else {
          report = run_board_worker(a->store, plan, options);
        }
      }
      deadline_hit = watch.deadline_hit;
      if (is_worker) return report.interrupted && !deadline_hit ? 130 : 0;
      if (interrupted) status = 130;
    }

    // ---- Outputs: what the store holds now, complete or not.
    const BoardProgress now = board_progress(store, plan);
    const auto parts = score_board(a->store, plan, names, rules.name, against ? &*against : nullptr);
    // A newcomer's step costs beside the board's: the --against stores' trials too.
    std::vector<std::string> cost_stores = {a->store}, cost_names = names;
    if (against) {
      for (const auto& location : a->against) {
        if (StoreSource::is_store_file(location)) cost_stores.push_back(location);
      }
      cost_names.insert(cost_names.end(), against->names.begin(), against->names.end());
    }
    const auto costs = board_step_costs(cost_stores, cost_names);
    std::optional<BoardStability> stability;
    if (a->bootstrap > 0) {
      BoardStabilityOptions bootstrap;
      bootstrap.resamples = a->bootstrap;
      bootstrap.rules = rules.name;
      // Tens of seconds for a whole board: say what is running.
      if (!a->quiet) std::fprintf(stderr, "pacer board: stability: bootstrap over studies, %d resamples\n", a->bootstrap);
      stability = board_stability(parts, bootstrap);
    }
    write_outputs(parts, now, costs, stability ? &*stability : nullptr, a->out);
    if (!a->quiet) {
      std::fputs(board_markdown(parts, now, &costs).c_str(), stdout);
      if (stability) std::fputs(board_stability_markdown(*stability).c_str(), stdout);
    }
    if (against) {
      // Each of this run's algorithms among the board's: what a newcomer wants to know.
      for (const auto& p : parts) {
        if (!p.seconds) continue;
        for (const auto& sub : p.seconds->submissions) {
          if (std::find(names.begin(), names.end(), sub.name) == names.end()) continue;
          std::printf("%s, %s: rank %d of %zu, score %.4f (seconds, %s clock)", sub.name.c_str(), p.part.name.c_str(),
                      sub.rank, p.seconds->submissions.size(), sub.score, p.seconds->clock.c_str());
          if (sub.speedup) std::printf(", %.3fx NAdamW's speed (geometric mean over workloads)", *sub.speedup);
          std::printf("\n");
        }
      }
    }
    std::printf("wrote %s/board.md, step_costs.csv%s and, per part, %s/<part>/{seconds,steps}/{scores.json, "
                "time_to_targets.csv, performance_profiles.svg, report.html}\n",
                a->out.c_str(), stability ? ", stability.json" : "", a->out.c_str());
    if (now.done < now.total) {
      const char* why = deadline_hit ? "the --max-hours deadline passed" : status == 130 ? "interrupted" : "not finished";
      std::fprintf(stderr, "pacer board: %s with %lld of %lld trials done (%s of trial time left); run the same command "
                           "again to continue\n",
                   why, static_cast<long long>(now.done), static_cast<long long>(now.total),
                   format_duration(now.remaining_trial_sec).c_str());
      if (status == 0 && !deadline_hit && !a->no_run) status = 1;  // a worker failed
    }
    return status;
  };
}

}  // namespace pacer::cli
