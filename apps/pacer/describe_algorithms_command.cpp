// pacer describe-algorithms (hidden): loads Python submissions and plugins in a process restricted
// as a contained trial is, and writes their declarations for the command that waits for it
// (contained_declarations.h). Its command line is written by contained_describer(); nobody types it.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "contained_declarations.h"
#include "core/child_processes.h"
#include "core/error.h"
#include "data/contained_trial_files.h"
#include "tune/contained_trial.h"

namespace pacer::cli {
namespace {

constexpr int kOutFd = 3;
constexpr size_t kMaxDescription = 4u << 20;
constexpr double kLimitSec = 600.0;  // an import that takes longer is a hang

struct DescribeArgs {
  std::string clock = "cpu";
  int out_fd = -1;
  std::vector<std::string> files;
};

// A file unlinked at once: only its descriptor, handed to the child, names it.
int anonymous_file() {
  const char* base = std::getenv("TMPDIR");
  std::string path = std::string(base && *base ? base : "/tmp") + "/pacer_describe_XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throw Error("cannot make a temporary file in " + path + ": " + std::strerror(errno));
  ::unlink(path.c_str());
  return fd;
}

std::string read_back(int fd) {
  std::string text;
  char buffer[65536];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxDescription) throw InputError("the contained process's description is over 4 MiB");
  }
  return text;
}

}  // namespace

DescribeInContainedProcess contained_describer(ClockKind clock) {
  return [clock](const std::vector<std::string>& files) {
    const int fd = anonymous_file();
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    ChildProcessOptions child;
    child.executable = "/proc/self/exe";
    child.argv = {"pacer-train", "describe-algorithms", "--clock", to_string(clock), "--out-fd", std::to_string(kOutFd), "--"};
    child.argv.insert(child.argv.end(), files.begin(), files.end());
    child.inherited_fds = {{fd, kOutFd}};
    child.label = "describe";
    child.capture_output = false;  // its messages (an import's traceback) go where ours go
    const TrialProcessExit exit = run_trial_process(child, kLimitSec, nullptr);
    const std::string what = files.size() == 1 ? "'" + files.front() + "'" : std::to_string(files.size()) + " algorithm files";
    if (exit.input_error) throw InputError(what + " did not load in a contained process (its message is above)");
    if (exit.exit_code != 0) throw InputError(what + " did not load in a contained process: " + exit.reason);
    return read_back(fd);
  };
}

Action add_describe_algorithms_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<DescribeArgs>();
  app.add_option("--clock", a->clock);
  app.add_option("--out-fd", a->out_fd)->required();
  app.add_option("files", a->files)->required();
  return [a]() -> int {
    // As a contained trial: no tracing, no child process on the cpu clock, the datasets unreadable,
    // nothing writable but its scratch folder; then the import.
    refuse_tracing();
    if (parse_clock_kind(a->clock) == ClockKind::cpu) refuse_child_processes();
    restrict_contained_trial("", "");
    std::string text;
    try {
      text = algorithm_declarations_json(a->files);
    } catch (const InputError& e) {
      throw InputError(with_child_process_hint(e.what()));  // a process started at import: why it was refused
    }
    for (size_t written = 0; written < text.size();) {
      const ssize_t n = ::write(a->out_fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Error(std::string("describe-algorithms: cannot write its description: ") + std::strerror(errno));
      written += static_cast<size_t>(n);
    }
    return 0;
  };
}

}  // namespace pacer::cli
