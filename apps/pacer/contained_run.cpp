#include "contained_run.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "catalog/trial_result.h"
#include "core/atomic_file.h"
#include "tune/contained_trial.h"

namespace pacer::cli {
namespace {

const char* kMarkerVariable = "PACER_CONTAINED_RUN";
const char* kParentVariable = "PACER_CONTAINED_RUN_PARENT";

}  // namespace

std::optional<int> run_in_contained_copy(const std::vector<std::string>& argv, const AlgorithmReference& algorithm,
                                         const std::string& out, double limit_sec, const std::atomic<bool>& stop,
                                         const std::string& executable) {
  if (std::getenv(kMarkerVariable)) {
    // The copy dies with the command that started it, as the command itself would have (kill -9
    // of `pacer run` must leave no trial running on, holding the results folder).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const char* parent = std::getenv(kParentVariable);
    if (parent && std::to_string(::getppid()) != parent) std::_Exit(128 + SIGKILL);  // it died before that
    return std::nullopt;
  }
  if (!algorithm.untrusted()) return std::nullopt;
  char marker[] = "/tmp/pacer_run_XXXXXX";
  const int fd = ::mkstemp(marker);
  if (fd < 0) return std::nullopt;  // no temporary file: run in process, as before
  ::close(fd);
  ChildProcessOptions child;
  child.argv = argv;
  child.executable = executable;
  child.environment = {std::string(kMarkerVariable) + "=" + marker,
                       std::string(kParentVariable) + "=" + std::to_string(::getpid())};
  child.capture_output = false;
  const TrialProcessExit exit = run_trial_process(child, limit_sec, &stop);
  std::string finished;
  std::getline(std::ifstream(marker), finished);
  std::remove(marker);
  if (!finished.empty()) {  // it ended as pacer run ends
    // What ended its process after it had finished (a leak check, a crash in teardown) changes
    // nothing it recorded, but is said.
    if (exit.exit_code != 0 && exit.exit_code != std::atoi(finished.c_str()))
      std::fprintf(stderr, "pacer: warning: the trial's process exited with status %d after it finished%s%s\n",
                   exit.exit_code, exit.reason.empty() ? "" : ": ", exit.reason.c_str());
    return std::atoi(finished.c_str());
  }
  // Bad input, said by the copy's main (run_trial_process tells it from a submission's os._exit(2),
  // which is its process dying like any other).
  if (exit.input_error && !exit.interrupted) return 2;
  const std::string reason = exit.interrupted ? "interrupted, and its process did not stop within 10 s: killed"
                                              : exit.reason;
  std::fprintf(stderr, "pacer: error: the trial of %s failed: %s\n", algorithm.value.c_str(), reason.c_str());
  std::error_code ec;
  if (!out.empty() && std::filesystem::is_directory(out, ec) && !std::filesystem::exists(out + "/trial.json", ec)) {
    TrialResult failed;
    failed.status = TrialStatus::failed;
    failed.stop_reason = exit.interrupted ? StopReason::interrupted : StopReason::error;
    failed.message = reason.rfind("its ", 0) == 0 ? "the submission's " + reason.substr(4) : reason;
    failed.algorithm = algorithm.value;
    failed.submission_error = true;
    write_file_atomic(out + "/trial.json", failed.to_json() + "\n");
    std::fprintf(stderr, "pacer: wrote %s/trial.json (status failed)\n", out.c_str());
  }
  return exit.interrupted ? 130 : 1;
}

bool in_contained_copy() { return std::getenv(kMarkerVariable) != nullptr; }

int contained_copy_finished(int code) {
  // The command's output first: the waiting command takes the mark below as the end, and a
  // process that dies after it (LeakSanitizer's exit at a leak, a crash in a library's teardown)
  // would take its buffered summary with it.
  std::fflush(stdout);
  std::fflush(stderr);
  if (const char* marker = std::getenv(kMarkerVariable)) std::ofstream(marker) << code << "\n";
  return code;
}

}  // namespace pacer::cli
