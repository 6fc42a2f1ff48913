#include "tune/contained_trial.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "catalog/plugin_records.h"
#include "core/error.h"
#include "core/orphan_reaper.h"
#include "catalog/trial_spec.h"
#include "tune/worker_options.h"
#include "catalog/workload_specs.h"

namespace pacer {
namespace {

const char* const kInputErrorMark = "PACER_INPUT_ERROR_MARK";

// The file a child's main marks on bad input (removed when the child is done with): see
// mark_input_error_for_parent.
class InputErrorMark {
 public:
  InputErrorMark() {
    char path[] = "/tmp/pacer_input_error_XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd >= 0) {
      ::close(fd);
      path_ = path;
    }
  }
  ~InputErrorMark() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  InputErrorMark(const InputErrorMark&) = delete;
  InputErrorMark& operator=(const InputErrorMark&) = delete;
  // Without a file (no temporary folder) every exit 2 counts as the process dying: a worker goes
  // on rather than stopping on what may be a submission's os._exit(2).
  std::string variable() const { return path_.empty() ? std::string() : std::string(kInputErrorMark) + "=" + path_; }
  bool marked() const {
    std::string word;
    if (!path_.empty()) std::ifstream(path_) >> word;
    return word == "2";
  }

 private:
  std::string path_;
};

// The trial's scratch folder, its $TMPDIR: the one folder outside its own that a contained trial
// may write (data/contained_trial_files.h); removed with what the trial left there.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/pacer_trial_XXXXXX";
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  std::string variable() const { return path_.empty() ? std::string() : "TMPDIR=" + path_; }

 private:
  std::string path_;
};

std::string exact(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

std::string signal_name(int signal_number) {
  const char* name = ::strsignal(signal_number);
  return "signal " + std::to_string(signal_number) + (name ? std::string(" (") + name + ")" : std::string());
}

}  // namespace

bool runs_contained(const std::string& algorithm) { return plugin_of(algorithm) != nullptr; }

ChildProcessOptions trial_process_options(const std::string& store, const TrialRecord& trial,
                                          const StudyRecord& study, const std::string& owner,
                                          const WorkerOptions& options) {
  ChildProcessOptions child;
  child.executable = options.trial_process;
  child.argv = {options.trial_process, "contained-trial", "--store", store, "--study", std::to_string(trial.study_id),
                "--trial", std::to_string(trial.id), "--owner", owner, "--threads", std::to_string(options.trial_process_threads),
                "--lease", exact(options.lease_sec), "--heartbeat", exact(options.heartbeat_sec)};
  auto add = [&](std::initializer_list<std::string> words) { child.argv.insert(child.argv.end(), words); };
  // The child loads the algorithm's file again: what this process registered is not registered there.
  if (const LoadedPlugin* plugin = plugin_of(study.algorithm)) {
    add({plugin->python ? "--python-file" : "--plugin-file", plugin->path});
  }
  if (!options.label.empty()) add({"--label", options.label});
  if (!options.out_dir.empty()) add({"--out-dir", options.out_dir});
  if (options.experiment_folders) add({"--experiment-folders"});
  if (options.checkpoints.every_steps > 0)
    add({"--checkpoint-every-steps", std::to_string(options.checkpoints.every_steps)});
  if (options.checkpoints.every_sec > 0) add({"--checkpoint-every-sec", exact(options.checkpoints.every_sec)});
  if (options.race) add({"--race"});
  if (options.race_cutoff) add({"--race-cutoff"});
  if (!options.progress) add({"--quiet"});
  child.environment = {"PACER_SUPERVISOR_PID=" + std::to_string(::getpid())};
  child.label = options.label.empty() ? "trial" : options.label;
  child.capture_output = false;  // its lines go where the worker's go
  return child;
}

double trial_process_limit_sec(const StudyRecord& study, double limit_sec) {
  if (limit_sec > 0) return limit_sec;
  return TrialSpec::from_json(study.trial_spec).process_limit_sec(workload_spec(study.workload));
}

void mark_input_error_for_parent() {
  if (const char* path = std::getenv(kInputErrorMark)) std::ofstream(path) << "2\n";
}

TrialProcessExit run_trial_process(const ChildProcessOptions& child, double limit_sec,
                                   const std::atomic<bool>* stop_requested, double grace_sec) {
  using Clock = std::chrono::steady_clock;
  ProcessSupervisorOptions supervision;
  supervision.poll_interval_sec = 0.05;
  supervision.grace_sec = grace_sec;
  ProcessSupervisor supervisor(supervision);
  const OrphanReaper reaper;  // before the child starts: what it orphans comes to this process
  const InputErrorMark mark;
  const ScratchFolder scratch;
  ChildProcessOptions marked_child = child;
  if (!mark.variable().empty()) marked_child.environment.push_back(mark.variable());
  if (!scratch.variable().empty()) marked_child.environment.push_back(scratch.variable());
  // OpenBLAS starts its thread pool as it loads, before the child can restrict itself, and the
  // file restrictions cover only threads started after them: the child starts with no pool, which
  // grows when it sets its threads (runtime/torch_runtime.h), from its restricted main thread.
  marked_child.environment.push_back("OPENBLAS_NUM_THREADS=1");
  const size_t index = supervisor.spawn(marked_child);
  const pid_t pid = supervisor.children().at(index).pid;
  const auto seconds = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
  const auto deadline = Clock::now() + seconds(limit_sec);
  std::optional<Clock::time_point> kill_at;  // a grace period after a forwarded interrupt
  TrialProcessExit exit;
  while (supervisor.step()) {
    const auto now = Clock::now();
    if (!exit.interrupted && stop_requested && stop_requested->load()) {
      exit.interrupted = true;
      supervisor.interrupt();
      kill_at = now + seconds(grace_sec);
    }
    if ((!exit.timed_out && now >= deadline) || (kill_at && now >= *kill_at)) {
      exit.timed_out = exit.timed_out || now >= deadline;
      kill_at.reset();
      supervisor.signal_running(SIGKILL);
    }
  }
  ::kill(-pid, SIGKILL);  // anything it left behind in its process group (a fork of the submission's)
  reaper.kill_adopted();  // and what left the group (a daemon: fork, setsid, fork), adopted here
  exit.exit_code = supervisor.children().at(index).exit_code;
  exit.input_error = exit.exit_code == 2 && mark.marked();
  if (exit.timed_out) {
    exit.reason = "ran past its limit of " + exact(limit_sec) + " s of wall time (--trial-limit; evals included); its process was killed";
  } else if (exit.exit_code > 128) {
    exit.reason = "its process died: " + signal_name(exit.exit_code - 128);
  } else if (exit.exit_code == 0) {
    exit.reason = "its process exited (status 0) before recording a result";
  } else {
    exit.reason = "its process exited with status " + std::to_string(exit.exit_code) + " (its message is above)";
  }
  return exit;
}

TrialOutcome failed_outcome(const std::string& reason, const std::vector<EvalRecord>& evals) {
  TrialOutcome outcome;
  outcome.status = TrialStatus::failed;
  outcome.stop_reason = StopReason::error;
  outcome.message = reason;
  if (!evals.empty()) {
    outcome.steps = evals.back().step;
    outcome.submission_time = evals.back().accumulated_submission_time;
    outcome.eval_time = evals.back().accumulated_eval_time;
    outcome.total_duration = evals.back().total_duration;
  }
  return outcome;
}

}  // namespace pacer
