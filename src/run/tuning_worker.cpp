#include "run/tuning_worker.h"

#include <fcntl.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/error.h"
#include "train/checkpoint.h"
#include "train/trial_runner.h"
#include "core/child_processes.h"
#include "run/racing.h"
#include "tune/contained_trial.h"
#include "run/trial_channel.h"
#include "run/trial_ledger.h"
#include "data/contained_trial_files.h"
#include "tune/sweep.h"
#include "runtime/torch_runtime.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer {
namespace {

// A worker waits out a PostgreSQL server that is restarting when it opens the store.
StudyStoreOptions worker_store_options() {
  StudyStoreOptions options;
  options.connect_retry_sec = 60;
  return options;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Renews the lease of the running trial through its ledger (on the ledger's own store connection,
// or over a contained trial's channel) and mirrors an outside stop request into the trial's stop flag.
class Heartbeat {
 public:
  Heartbeat(TrialLedger& ledger, const WorkerOptions& options, std::atomic<bool>& trial_stop, std::atomic<bool>& lease_lost)
      : thread_([=, &ledger, &options, &trial_stop, &lease_lost] {
          auto next = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.heartbeat_sec);
          std::unique_lock<std::mutex> lock(mutex_);
          while (!done_) {
            cv_.wait_for(lock, std::chrono::milliseconds(50));
            if (done_) break;
            if (options.stop_requested && options.stop_requested->load()) trial_stop = true;
            if (std::chrono::steady_clock::now() < next) continue;
            lock.unlock();
            const auto start = std::chrono::steady_clock::now();
            bool ours = true;
            try {
              ours = ledger.heartbeat();
            } catch (const std::exception&) {
              // A store busy past its timeout or unreachable: try again at the next beat.
            }
            store_seconds_ += seconds_since(start);
            ++calls_;
            lock.lock();
            if (!ours) {
              lease_lost = true;
              trial_stop = true;
            }
            next = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.heartbeat_sec);
          }
        }) {}

  ~Heartbeat() { stop(); }

  // Ends the thread (idempotent). The totals below are final, and safe to read, only after it:
  // reading them while the thread ran was a data race (found by make sanitize's TSan build).
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  double store_seconds() const { return store_seconds_; }
  int64_t calls() const { return calls_; }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  double store_seconds_ = 0.0;  // written by the thread, read after stop()
  int64_t calls_ = 0;
  std::thread thread_;
};

std::string describe_result(const TrialResult& r) {
  std::ostringstream out;
  if (is_race_stop(r.stop_reason)) {
    out << "stopped by racing after " << r.evals.size() << " evals ("
        << (r.stop_reason == StopReason::race_study_best ? "it can no longer be its study's best"
                                                         : "past 4x the fastest time on its workload")
        << "), " << r.steps << " steps";
    return out.str();
  }
  // A scaling trial stops at its goal, not at the workload's target: say which one it met.
  if (r.stop_reason == StopReason::goal_reached) out << "goal reached at step " << r.steps << "; target ";
  out << to_string(r.status);
  if (r.time_to_target) out << " at " << *r.time_to_target << " s (step " << *r.steps_to_target << ")";
  if (r.best_validation) out << ", best validation " << *r.best_validation;
  out << ", " << r.steps << " steps";
  if (!r.message.empty()) out << " [" << r.message << "]";
  return out.str();
}

// Streams each eval into the trial's ledger as it is logged, so a killed worker loses nothing
// measured; a lost lease (another worker took the trial over) stops the trial.
class LedgerRecorder : public TrialObserver {
 public:
  using Timed = std::function<void(const std::function<void()>&)>;
  LedgerRecorder(TrialLedger& ledger, Timed timed, int64_t& evals_recorded, std::function<void()> on_lease_lost,
                 std::function<void()> after_eval)
      : ledger_(ledger), timed_(std::move(timed)), evals_recorded_(evals_recorded),
        on_lease_lost_(std::move(on_lease_lost)), after_eval_(std::move(after_eval)) {}

  // Resumed from a checkpoint: the evals before it belong to this attempt too.
  void on_start(const TrialStart& start) override {
    for (const auto& record : start.earlier_evals) record_eval(record);
  }

  void on_eval(const EvalReport& report) override {
    record_eval(report.record);
    if (after_eval_) after_eval_();  // e.g. refresh the racing bound before the stop rules run
  }

 private:
  void record_eval(const EvalRecord& record) {
    const int64_t index = eval_index_++;
    try {
      timed_([&] { ledger_.record_eval(index, record); });
      ++evals_recorded_;
    } catch (const LeaseLost&) {
      on_lease_lost_();
    }
  }

  TrialLedger& ledger_;
  Timed timed_;
  int64_t& evals_recorded_;
  std::function<void()> on_lease_lost_;
  std::function<void()> after_eval_;
  int64_t eval_index_ = 0;
};

}  // namespace

namespace {

// What run_tuning_worker and a contained trial's process share: the options, the report and the
// log lines with the worker's label.
struct WorkerContext {
  const std::string& store_path;
  const WorkerOptions& options;
  WorkerReport& report;

  void log(const std::string& line) const {
    if (options.progress) options.progress->log((options.label.empty() ? "" : options.label + ": ") + line);
  }
  template <typename Call>
  void timed(Call&& call) {
    const auto start = std::chrono::steady_clock::now();
    call();
    report.store_seconds += seconds_since(start);
    ++report.store_calls;
  }
};

enum class TrialEnd { finished, interrupted, lease_lost };
using WorkloadCache = std::map<std::string, std::unique_ptr<Workload>>;  // data loaded once per workload

// What racing needs of the worker's options.
RacingOptions racing_options(const WorkerOptions& o) {
  RacingOptions r;
  r.cutoff = o.race_cutoff;
  r.checkpointing = o.checkpoints.periodic();
  return r;
}

std::string trial_name(const StudyRecord& study, const TrialRecord& trial) {
  return study.name() + " trial " + std::to_string(trial.index);
}

// The trial's options: its spec, seed, folder (a re-run resumes from its checkpoint or starts
// from a clean folder) and the algorithm factory for virtual workers.
TrialOptions trial_options_for(const TrialRecord& trial, const StudyRecord& study, const WorkerOptions& options) {
  TrialOptions trial_options;
  trial_options.spec = TrialSpec::from_json(study.trial_spec);  // virtual workers inside this process
  trial_options.make_algorithm = [name = study.algorithm] { return create_algorithm(name); };
  trial_options.seed = trial.seed;
  if (!options.out_dir.empty()) {
    trial_options.out_dir = trial_folder(options.out_dir, study, trial.index, options.experiment_folders);
    trial_options.checkpoints = options.checkpoints;
    // A re-run continues from the killed attempt's checkpoint when there is one; otherwise it
    // starts from a clean folder: no rows of the attempt that was killed.
    if (trial.attempts > 1 && options.checkpoints.periodic() && checkpoint_exists(trial_options.out_dir + "/checkpoint")) {
      trial_options.checkpoints.resume = true;
    } else if (trial.attempts > 1) {
      std::filesystem::remove_all(trial_options.out_dir);
    }
  }
  return trial_options;
}

// Runs a trial this worker has claimed, here: its evals streamed into its ledger, its outcome
// recorded (finished), the trial released (interrupted) or left to the worker that took it over.
// `trial_options` are trial_options_for's (the caller prepared the trial's folder).
TrialEnd run_claimed_trial(TrialLedger& ledger, const TrialRecord& trial, const StudyRecord& study,
                           WorkerContext& w, WorkloadCache& workloads, TrialOptions trial_options) {
  const WorkerOptions& options = w.options;
  // One workload per (name, model options): a scientific round's values are different models.
  auto& workload = workloads[study.workload + "|" + to_string(trial_options.spec.workload_options)];
  if (!workload) workload = create_workload(study.workload, trial_options.spec.workload_options);
  auto algorithm = create_algorithm(study.algorithm);
  std::optional<Hyperparameters> hparams;
  if (trial.hparams_json) hparams = Hyperparameters::from_json_text(*trial.hparams_json, study.name());
  std::atomic<bool> trial_stop{false}, lease_lost{false};
  trial_options.stop_requested = &trial_stop;
  const std::unique_ptr<Clock> trial_clock = options.make_trial_clock ? options.make_trial_clock() : nullptr;
  trial_options.clock = trial_clock.get();
  const std::function<void()> refresh_bound =
      options.race ? add_racing(ledger, racing_options(options), study, workload->spec(), trial_options.spec,
                                trial_options.extra_stop_rules, [&](const std::function<void()>& call) { w.timed(call); })
                   : std::function<void()>();
  trial_options.observers.push_back(std::make_shared<LedgerRecorder>(
      ledger, [&](auto&& call) { w.timed(call); }, w.report.evals_recorded,
      [&] {
        lease_lost = true;
        trial_stop = true;
      },
      refresh_bound));
  const bool show_trial_progress = options.progress && Progress::auto_detect() == Progress::Mode::terminal;
  trial_options.progress = show_trial_progress ? options.progress : nullptr;

  w.log(study.name() + " trial " + std::to_string(trial.index) + "/" + std::to_string(study.planned_trials) +
        (trial.attempts > 1 ? " (attempt " + std::to_string(trial.attempts) + ")" : "") + ": " +
        (trial.hparams_json ? *trial.hparams_json : std::string("self-tuning")));
  TrialResult result;
  const auto trial_start = std::chrono::steady_clock::now();
  {
    Heartbeat heartbeat(ledger, options, trial_stop, lease_lost);
    try {
      result = run_trial(*workload, *algorithm, hparams, trial_options);
    } catch (const InputError& e) {
      // Bad input (e.g. a missing data folder) fails every trial alike: give this one back
      // so that the fixed command resumes it, and stop.
      heartbeat.stop();
      w.report.store_seconds += heartbeat.store_seconds();
      ledger.release(std::string("error: ") + e.what());
      throw;
    }
    heartbeat.stop();
    w.report.store_seconds += heartbeat.store_seconds();
    w.report.store_calls += heartbeat.calls();
  }
  w.report.trial_seconds += seconds_since(trial_start);

  if (lease_lost) {
    w.log(trial_name(study, trial) + ": lease lost (another worker took the trial over); result discarded");
    return TrialEnd::lease_lost;
  }
  if (result.interrupted()) {
    w.timed([&] { ledger.release("interrupted"); });
    w.log(trial_name(study, trial) + ": interrupted; it will be re-run on resume");
    return TrialEnd::interrupted;
  }
  try {
    w.timed([&] { ledger.finish(result); });
  } catch (const LeaseLost&) {
    w.log(trial_name(study, trial) + ": lease lost before the result was recorded");
    return TrialEnd::lease_lost;
  }
  ++w.report.trials_run;
  if (is_race_stop(result.stop_reason)) ++w.report.trials_raced;
  w.log(trial_name(study, trial) + ": " + describe_result(result));
  return TrialEnd::finished;
}

// The trial as the store holds it now (after its process ended).
TrialRecord reread(StudyStore& store, WorkerContext& w, const TrialRecord& trial) {
  std::vector<TrialRecord> trials;
  w.timed([&] { trials = store.trials(trial.study_id); });
  for (auto& t : trials)
    if (t.id == trial.id) return t;
  throw Error("trial " + std::to_string(trial.id) + " is no longer in the store");
}

// An untrusted algorithm's trial, run by a child process (tune/contained_trial.h) that hands its
// records to this worker over a channel (run/trial_channel.h): the process that runs untrusted code
// never writes the store. What the child could not record (it crashed, hung past its limit, exited,
// was killed, or sent what the channel refuses) is recorded here: the trial fails with the reason,
// and the worker goes on.
TrialEnd run_contained(StudyStore& store, const TrialRecord& trial, const StudyRecord& study, const std::string& owner,
                       WorkerContext& w) {
  const auto trial_start = std::chrono::steady_clock::now();
  TrialChannelServer channel(w.store_path, trial, study, owner, w.options);
  ChildProcessOptions child = trial_process_options(w.store_path, trial, study, owner, w.options);
  child.inherited_fds = {{channel.child_fd(), kChannelFdInChild}};
  child.argv.insert(child.argv.end(), {"--channel-fd", std::to_string(kChannelFdInChild)});
  const TrialProcessExit exit = run_trial_process(child, trial_process_limit_sec(study, w.options.trial_limit_sec),
                                                  w.options.stop_requested);
  const std::string complaint = channel.stop();
  w.report.trial_seconds += seconds_since(trial_start);
  w.report.evals_recorded += channel.evals_recorded();
  w.report.store_calls += channel.store_calls();
  w.report.store_seconds += channel.store_seconds();
  const TrialRecord now = reread(store, w, trial);
  const bool still_ours = now.status == StoredTrialStatus::running && now.lease_owner == owner;
  // Bad input stops the worker as in process (the child released the trial, or it is done here).
  if (exit.input_error) {
    if (still_ours) {
      w.timed([&] { store.release_trial(trial.id, owner, "error: bad input (the trial's process said why above)"); });
    }
    throw InputError(trial_name(study, trial) + ": its process stopped on bad input (the message above)");
  }
  if (!still_ours) {
    if (now.status == StoredTrialStatus::interrupted) return TrialEnd::interrupted;
    if (!is_terminal(now.status)) return TrialEnd::lease_lost;
    ++w.report.trials_run;
    if (now.result && now.result->status == TrialStatus::stopped) ++w.report.trials_raced;
    return TrialEnd::finished;
  }
  if (exit.interrupted && complaint.empty()) {
    w.timed([&] { store.release_trial(trial.id, owner, "interrupted"); });
    w.log(trial_name(study, trial) + ": interrupted; it will be re-run on resume");
    return TrialEnd::interrupted;
  }
  const std::string reason = complaint.empty() ? exit.reason : complaint + "; the worker closed its channel and " + exit.reason;
  const TrialOutcome failed = failed_outcome(reason, store.evals(trial.id, trial.attempts));
  try {
    w.timed([&] { store.finish_trial(trial.id, owner, failed); });
  } catch (const LeaseLost&) {
    return TrialEnd::lease_lost;
  }
  ++w.report.trials_run;
  w.log(trial_name(study, trial) + ": failed [" + reason + "]");
  return TrialEnd::finished;
}

}  // namespace

WorkerReport run_tuning_worker(const std::string& store_path, const std::vector<StudyRecord>& studies,
                               const WorkerOptions& options) {
  WorkerReport report;
  WorkerContext w{store_path, options, report};
  StudyStore store(store_path, worker_store_options());
  const std::string owner = StudyStore::make_owner_id();
  std::map<int64_t, StudyRecord> by_id;
  std::vector<int64_t> ids;
  for (const auto& s : studies) {
    by_id[s.id] = s;
    ids.push_back(s.id);
  }
  auto stopping = [&] { return options.stop_requested && options.stop_requested->load(); };
  WorkloadCache workloads;
  // Trials in a row whose lease this worker lost. One is a worker that stalled past its lease;
  // several in a row mean the store no longer keeps leases (damaged, or workers whose leases
  // expire before they renew them), and re-running trials would go on for ever.
  int leases_lost_in_a_row = 0;
  auto lost_another = [&](const std::string& trial_name) {
    ++report.leases_lost;
    if (++leases_lost_in_a_row < kLeasesLostInARowLimit) return;
    throw Error("tuning worker" + (options.label.empty() ? std::string() : " (" + options.label + ")") + ": lost the lease of " +
                std::to_string(leases_lost_in_a_row) + " trials in a row (the last: " + trial_name + ") in " + store_path +
                "; the store does not keep this worker's leases (is it damaged? check it with sqlite3 STORE 'pragma "
                "integrity_check'), or --lease is shorter than the heartbeat; stopping instead of re-running trials");
  };

  while (!stopping()) {
    std::optional<TrialRecord> claimed;
    w.timed([&] { claimed = store.claim_trial(ids, owner, options.lease_sec); });
    if (!claimed) {
      StudyProgress progress;
      w.timed([&] { progress = store.progress(ids); });
      if (progress.finished() || !options.wait_for_others) break;
      // Other workers hold the remaining trials: wait, and take over any whose lease expires.
      for (double waited = 0.0; waited < options.poll_sec && !stopping(); waited += 0.05) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      continue;
    }
    const TrialRecord& trial = *claimed;
    const StudyRecord& study = by_id.at(trial.study_id);
    const bool contained = !options.trial_process.empty() && runs_contained(study.algorithm);
    TrialEnd end;
    if (contained) {
      end = run_contained(store, trial, study, owner, w);
    } else {
      StoreLedger ledger(store, store_path, trial, study, owner, options);
      end = run_claimed_trial(ledger, trial, study, w, workloads, trial_options_for(trial, study, options));
    }
    if (end == TrialEnd::lease_lost) {
      lost_another(trial_name(study, trial));
      continue;
    }
    if (end == TrialEnd::interrupted) {
      report.interrupted = true;
      break;
    }
    leases_lost_in_a_row = 0;
  }
  if (stopping()) report.interrupted = true;
  return report;
}

int run_contained_trial(const std::string& store_path, int64_t study_id, int64_t trial_id, const std::string& owner,
                        int channel_fd, const WorkerOptions& options, const std::function<void()>& load_algorithm) {
  WorkerReport report;
  WorkerContext w{store_path, options, report};
  // The channel closes on exec: a program the trial runs (on the wall clock) does not hold it.
  if (::fcntl(channel_fd, F_SETFD, FD_CLOEXEC) != 0) {
    throw Error("contained trial: --channel-fd " + std::to_string(channel_fd) + " is not an open descriptor");
  }
  ChannelLedger ledger(channel_fd);
  // What it needs of the store, read before anything untrusted runs; from then on its records go
  // to the worker over the channel, and this process never opens the store again.
  std::optional<StudyRecord> study;
  TrialRecord trial;
  {
    StudyStore store(store_path, worker_store_options());
    study = store.study(study_id);
    if (!study) throw Error("contained trial: no study " + std::to_string(study_id) + " in " + store_path);
    TrialRecord probe;
    probe.id = trial_id;
    probe.study_id = study_id;
    trial = reread(store, w, probe);
  }
  if (trial.status != StoredTrialStatus::running || trial.lease_owner != owner) {
    throw Error("contained trial: " + trial_name(*study, trial) + " is not running under this worker's lease");
  }
  TrialOptions trial_options = trial_options_for(trial, *study, options);
  WorkloadCache workloads;
  // One thread until the restrictions are in place: Landlock covers only the thread that asks and
  // the threads started after it, and loading the data would start the intra-op pool.
  const int threads = num_threads();
  set_num_threads(1);
  try {
    // The trial's folder and its data, made and read now: once the restrictions are in place,
    // the dataset's files cannot be read and nothing outside the trial's folder can be made.
    if (!trial_options.out_dir.empty()) std::filesystem::create_directories(trial_options.out_dir);
    auto& workload = workloads[study->workload + "|" + to_string(trial_options.spec.workload_options)];
    workload = create_workload(study->workload, trial_options.spec.workload_options);
    workload->load({trial_options.spec.data_dir, c10::Device(c10::DeviceType::CPU)});
  } catch (const InputError& e) {
    ledger.release(std::string("error: ") + e.what());
    throw;
  }
  // This process runs only this trial, from the code's import on: it traces no process (the
  // worker that waits for it, say), on the cpu clock it may start no process whose work the
  // clock would not count (core/child_processes.h), and it reads and writes only the files a
  // trial may (core/file_restrictions.h).
  refuse_tracing();
  if (trial_options.spec.clock == ClockKind::cpu) refuse_child_processes();
  trial_options.restrictions = restrict_contained_trial(trial_options.out_dir, trial_options.spec.data_dir);
  set_num_threads(threads);
  if (load_algorithm) {
    try {
      load_algorithm();
    } catch (const InputError& e) {
      // The command imported it unrestricted before any trial; what fails here, under the trial's
      // restrictions, is this trial's failure (the study goes on), not bad input.
      const std::string reason = with_child_process_hint(std::string("its import failed in the trial's process: ") + e.what());
      ledger.finish(failed_outcome(reason, {}));
      w.log(trial_name(*study, trial) + ": failed [" + reason + "]");
      return 0;
    }
  }
  switch (run_claimed_trial(ledger, trial, *study, w, workloads, std::move(trial_options))) {
    case TrialEnd::finished: return 0;
    case TrialEnd::interrupted: return 130;
    case TrialEnd::lease_lost: return 3;
  }
  return 1;
}

}  // namespace pacer
