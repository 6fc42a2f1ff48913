// pacer tune: tuning studies under the AlgoPerf rulesets, run by one or several workers that
// share a study store; re-running the same command resumes.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "algorithms/plugin_loader.h"
#include "algorithms/registry.h"
#include "commands.h"
#include "input_guards.h"
#include "trial_spec_options.h"
#include "worker_processes.h"
#include "interrupt.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/process_supervisor.h"
#include "core/spawn_error.h"
#include "runtime/torch_runtime.h"
#include "score/rules.h"
#include "store/store_database.h"
#include "store/study_store.h"
#include "tune/log_folder.h"
#include "tune/scientific.h"
#include "tune/study_summary.h"
#include "tune/sweep.h"
#include "tune/tuning_worker.h"
#include "workloads/suites.h"

namespace pacer::cli {
namespace {

struct TuneArgs {
  std::vector<std::string> workloads;
  std::string suite, algorithm, space_file, ruleset = "external", rules, sampler = "halton", name;
  std::string store = "runs/tune.db", out, worker_label, scientific;
  int studies = 0, workers = 1, grid_points = 3, threads = 0;
  int64_t trials = 0;
  std::shared_ptr<TrialSpecOptions> trial = std::make_shared<TrialSpecOptions>();
  uint64_t seed = 0, sampler_seed = 0;
  uint64_t held_out_seed = 0;
  bool held_out_seed_given = false;
  double lease = 60.0, heartbeat = 0.0;
  bool quiet = false, json = false, no_race = false;
  std::string checkpoint_every;
};

}  // namespace

Action add_tune_command(CLI::App& app, int argc, char** argv) {
  auto a = std::make_shared<TuneArgs>();
  app.add_option("-w,--workload", a->workloads, "Workload(s) to tune (repeatable; see pacer list)")->delimiter(',');
  app.add_option("--suite", a->suite, "A workload suite instead of -w (small, variants, all, quick; see pacer list)");
  app.add_option_function<uint64_t>(
      "--held-out-seed", [a](const uint64_t& v) { a->held_out_seed = v, a->held_out_seed_given = true; },
      "Under --rules v0.5 with --suite: seed of the held-out variant draw (default: --seed)");
  app.add_option("-a,--algorithm", a->algorithm, "Training algorithm: a name, a plugin library (./libx.so[:NAME]) or a Python submission (a .py file or its folder)")->required();
  app.add_option("--space", a->space_file, "Search space JSON in the AlgoPerf format (external tuning), e.g. spaces/nadamw.json");
  app.add_option("--ruleset", a->ruleset, "external (search space, N studies x M trials) or self (no hyperparameters)")
      ->capture_default_str();
  app.add_option("--rules", a->rules, "Rules preset for defaults: v0.6 (3 studies, self-tuning budget x1.5) or v0.5 (5, x3)");
  app.add_option("--studies", a->studies, "Studies per workload (default: the rules preset's)")->check(positive_number());
  app.add_option("--trials", a->trials, "Trials per study (external; default 5). More later extends the studies")
      ->check(positive_number());
  app.add_option("--sampler", a->sampler, "halton (the reference quasi-random search), random, grid or list")
      ->capture_default_str();
  app.add_option("--sampler-seed", a->sampler_seed, "Seed of the sampler and of the recorded shuffle of its points")
      ->capture_default_str();
  app.add_option("--grid-points", a->grid_points, "Values per range dimension for --sampler grid")->check(positive_number());
  app.add_option("--seed", a->seed, "Base seed of the trials (each trial: derived from seed, study, trial)")
      ->capture_default_str();
  app.add_option("--name", a->name, "Experiment (submission) name; default: the algorithm");
  app.add_option("--scientific", a->scientific,
                 "Incremental tuning round: NAME=v1,v2,... (a workload option such as activation, or a hyperparameter); "
                 "the space's other hyperparameters are tuned separately for each value, as experiment NAME@NAME=v")
      ->type_name("NAME=V1,V2");
  app.add_option("--store", a->store, "Study store: a SQLite file (created if missing) or a postgresql:// URI")->capture_default_str();
  app.add_option("-o,--out", a->out, "Also write the reference log layout: OUT/study_<k>/<workload>_libtorch/trial_<i>/");
  app.add_option("--workers", a->workers, "Worker processes on this machine sharing the studies")->check(positive_number());
  add_trial_spec_options(app, a->trial);
  app.add_option("--checkpoint-every", a->checkpoint_every,
                 "Checkpoint each trial in its --out folder every N steps or T seconds (30s, 5m): a trial re-run "
                 "after its worker died resumes from it");
  app.add_option("--threads", a->threads, "Intra-op CPU threads per worker (default: this machine's CPUs / --workers)")->check(non_negative_number());
  app.add_option("--lease", a->lease, "Seconds a trial stays claimed without a heartbeat before another worker re-runs it")
      ->check(positive_number())->capture_default_str();
  app.add_option("--heartbeat", a->heartbeat, "Lease renewal period in seconds (default: lease / 6)")->check(positive_number());
  app.add_option("--worker-label", a->worker_label, "Label of this worker's log lines (set for spawned workers)")
      ->group("");  // internal
  app.add_flag("--no-race", a->no_race,
               "Run every external-tuning trial to its target or budget (default: stop a trial once it can no "
               "longer become its study's best; scores and best trials are the same either way)");
  app.add_flag("-q,--quiet", a->quiet, "Only the final summary");
  app.add_flag("--json", a->json, "Final summary as JSON on stdout (as `pacer study show --json`); progress on stderr");

  const std::vector<std::string> base_args = worker_base_args(argc, argv);
  return [a, base_args]() -> int {
    // ---- Inputs, validated before anything is written.
    if (!a->suite.empty() && !a->workloads.empty()) throw InputError("give either -w/--workload or --suite, not both");
    std::vector<std::string> workloads = a->suite.empty() ? a->workloads : workload_suite(a->suite);
    if (workloads.empty()) throw InputError("no workload: give -w/--workload NAME or --suite NAME");
    const RulesPreset& rules = rules_preset(a->rules.empty() ? default_rules_name() : a->rules);
    // AlgoPerf v0.5: each base workload of the suite brings one held-out variant, drawn by a seed
    // that is printed and written beside the logs so the draw can be repeated.
    std::vector<std::string> held_out;
    const uint64_t held_out_seed = a->held_out_seed_given ? a->held_out_seed : a->seed;
    if (rules.held_out_variants && !a->suite.empty()) {
      held_out = draw_held_out_variants(workloads, held_out_seed);
      for (const auto& name : held_out)
        if (std::find(workloads.begin(), workloads.end(), name) == workloads.end()) workloads.push_back(name);
    }
    const Ruleset ruleset = parse_ruleset(a->ruleset);
    const std::string algorithm = resolve_algorithm(a->algorithm);  // a name, a plugin library, a .py submission
    // A Python submission in AlgoPerf's layout brings its own search space.
    if (const LoadedPlugin* plugin = plugin_of(algorithm);
        a->space_file.empty() && ruleset == Ruleset::external && plugin && !plugin->search_space.empty()) {
      a->space_file = plugin->search_space;
      std::fprintf(stderr, "pacer: searching %s (the submission's own search space)\n", a->space_file.c_str());
    }
    std::optional<SearchSpace> space;
    if (!a->space_file.empty()) {
      space = SearchSpace::from_json_file(a->space_file);
      for (const auto& w : space->warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
    }
    if (a->heartbeat <= 0.0) a->heartbeat = a->lease / 6.0;
    if (a->heartbeat >= a->lease) throw InputError("--heartbeat must be shorter than --lease");
    const auto [checkpoint_steps, checkpoint_sec] = parse_checkpoint_every(a->checkpoint_every);
    if ((checkpoint_steps > 0 || checkpoint_sec > 0) && a->out.empty()) {
      throw InputError("--checkpoint-every needs --out (the checkpoints live in the trial folders)");
    }

    std::optional<ScientificAxis> scientific;
    if (!a->scientific.empty()) scientific = parse_scientific(a->scientific);
    std::vector<SweepSpec> sweeps;
    for (const auto& workload : workloads) {
      SweepSpec s;
      s.experiment = a->name.empty() ? algorithm : a->name;
      s.workload = workload;
      s.algorithm = algorithm;
      s.ruleset = ruleset;
      s.space = space;
      s.space_origin = a->space_file;
      s.sampler = a->sampler == "quasi_random" ? "halton" : a->sampler;
      s.sampler_options.seed = a->sampler_seed;
      s.sampler_options.grid_points = a->grid_points;
      s.studies = a->studies > 0 ? a->studies : rules.num_studies;
      s.trials = ruleset == Ruleset::self ? (a->trials > 0 ? a->trials : 1)
                                          : (a->trials > 0 ? a->trials : kDefaultTrialsPerStudy);
      s.seed = a->seed;
      s.trial = a->trial->resolved(default_budget_multiplier(ruleset, rules));
      if (!scientific) {
        sweeps.push_back(s);
        continue;
      }
      if (s.trial.workload_options.count(scientific->name)) {
        throw InputError("--scientific " + scientific->name + " and --workload-option " + scientific->name +
                         ": give the values in one place");
      }
      for (auto& one : expand_scientific(s, *scientific)) sweeps.push_back(std::move(one));
    }
    for (const auto& s : sweeps) validate_sweep(s);  // before the store exists
    resolve_device(a->trial->spec.device);  // a bad device is an input error now, not in every trial
    // Before the store: an --out of another experiment, or one that cannot be written, is refused now.
    if (!a->out.empty() && a->worker_label.empty()) claim_log_folder(a->out, a->name.empty() ? algorithm : a->name, to_string(ruleset));
    make_store_folder(a->store);

    StudyStore store(a->store);
    const std::vector<StudyRecord> studies = plan_sweeps(store, sweeps);
    // Workers share the machine's CPUs; each is handed its share explicitly.
    const int threads = set_num_threads(a->threads, a->workers);

    // Spawned workers share one terminal: plain lines, no redrawn bars.
    Progress progress(a->quiet                    ? Progress::Mode::quiet
                      : a->worker_label.empty() ? Progress::auto_detect()
                                                : Progress::Mode::lines);
    const StudyProgress before = store.progress([&] {
      std::vector<int64_t> ids;
      for (const auto& s : studies) ids.push_back(s.id);
      return ids;
    }());
    if (a->worker_label.empty()) {
      progress.log("pacer tune: " + std::to_string(sweeps.size()) +
                   (scientific ? " sweeps (workloads x values of " + scientific->name + ")" : " workload(s)") + " x " +
                   std::to_string(sweeps[0].studies) + " studies x " + std::to_string(sweeps[0].trials) +
                   " trials (" + to_string(ruleset) + " tuning, " + rules.name + "); store " + store.path() + ": " +
                   std::to_string(before.done) + " done, " + std::to_string(before.pending + before.running) +
                   " to run");
    }

    if (!held_out.empty() && a->worker_label.empty()) {
      std::string names;
      for (const auto& n : held_out) names += (names.empty() ? "" : ", ") + n;
      progress.log("held-out variants (" + rules.name + ", seed " + std::to_string(held_out_seed) + "): " + names);
      if (!a->out.empty()) {
        create_directories(a->out);
        nlohmann::ordered_json record = {{"rules", rules.name}, {"seed", std::to_string(held_out_seed)},
                                         {"suite", a->suite}, {"held_out_workloads", held_out}};
        write_file_atomic(a->out + "/held_out_workloads.json", record.dump(2) + "\n");
      }
    }

    // First Ctrl-C: finish cleanly (the running trial is released as interrupted). Second: default.
    const std::atomic<bool>& stop = install_interrupt_handler();

    WorkerOptions options;
    options.out_dir = a->out;
    options.experiment_folders = scientific.has_value();  // one sweep per value: OUT/<experiment>/study_<k>/...
    options.lease_sec = a->lease;
    options.heartbeat_sec = a->heartbeat;
    options.poll_sec = std::min(2.0, a->heartbeat);
    options.stop_requested = &stop;
    options.progress = &progress;
    options.label = a->worker_label;
    options.checkpoint_every_steps = checkpoint_steps;
    options.checkpoint_every_sec = checkpoint_sec;
    options.race = !a->no_race;

    WorkerReport report;
    bool workers_failed = false;
    if (a->workers > 1) {
      ProcessSupervisorOptions supervision;
      supervision.stop_others_on_failure = false;  // the others finish the studies
      supervision.poll_interval_sec = 0.05;
      supervision.interrupt_count = [&stop] { return stop ? 1 : 0; };  // forwarded once
      ProcessSupervisor workers(supervision);  // on an exception: the workers started so far are killed
      for (int k = 1; k <= a->workers; ++k) {
        try {
          workers.spawn(worker_process(base_args, k, threads));
        } catch (const SpawnError& e) {
          throw Error(std::string("cannot start a worker process: ") + std::strerror(e.error_number()));
        }
      }
      workers_failed = workers.run() != 0;
      // A worker that died leaves its trial to the lease; finish whatever is left here.
      if (workers_failed && !stop) report = run_tuning_worker(a->store, studies, options);
    } else {
      report = run_tuning_worker(a->store, studies, options);
    }
    if (!a->worker_label.empty()) return report.interrupted ? 130 : 0;

    const auto sweeps_summary = summarize_studies(store, studies);
    if (a->json) {
      std::fputs(sweeps_json_text(sweeps_summary).c_str(), stdout);
    } else {
      for (const auto& sweep : sweeps_summary) std::fputs(format_study_details(sweep).c_str(), stdout);
    }
    if (report.trials_run > 0 && report.trial_seconds > 0) {
      std::fprintf(a->json ? stderr : stdout, "store overhead: %lld calls, %.1f ms in total, %.3f%% of %.1f s of trials (%lld evals recorded)\n",
                  static_cast<long long>(report.store_calls), report.store_seconds * 1e3,
                  100.0 * report.store_seconds / report.trial_seconds, report.trial_seconds,
                  static_cast<long long>(report.evals_recorded));
    }
    if (stop || report.interrupted) {
      std::fprintf(stderr, "pacer: interrupted; run the same command again to resume\n");
      return 130;
    }
    bool finished = true;
    for (const auto& s : sweeps_summary) finished = finished && s.finished();
    if (!finished) {
      std::fprintf(stderr, "pacer: error: some trials did not finish (a worker failed); run the same command again\n");
      return 1;
    }
    return 0;
  };
}

}  // namespace pacer::cli
