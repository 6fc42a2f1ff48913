// ProcessSupervisor with /bin/sh children: output arrives as complete, labelled lines (also a last
// line without '\n'); exit codes by child (128 + N for signal N); a failing child stops the others
// (SIGTERM, then SIGKILL after the grace period for one that ignores SIGTERM); a forwarded
// interrupt reaches every child's process group (a shell's own child included); and after a
// forwarded interrupt a child leaving with 130 does not get the others stopped before the grace
// period. Every test takes well under 3 s.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/process_supervisor.h"
#include "core/spawn_error.h"

namespace pacer {
namespace {

using Kind = SupervisorEvent::Kind;
using Seconds = std::chrono::duration<double>;

ChildProcessOptions shell(const std::string& label, const std::string& script) {
  ChildProcessOptions child;
  child.argv = {"/bin/sh", "-c", script};
  child.label = label;
  return child;
}

// Leaves with 130 soon after a SIGINT whenever it arrives. A plain "echo ready; sleep 60" does not:
// a SIGINT that lands while dash is forking the sleep is held by the shell until the sleep (which
// never saw it) ends, 60 s later (seen on a loaded 2-core machine, ~1 run in 6).
const char* const kInterruptible = "trap 'exit 130' INT; echo ready; while :; do sleep 0.05; done";

// Collects what a supervisor reports.
struct Recorder {
  std::vector<std::pair<std::string, std::string>> lines;  // (label, line)
  std::vector<SupervisorEvent> events;

  ProcessSupervisorOptions options(double grace_sec) {
    ProcessSupervisorOptions o;
    o.grace_sec = grace_sec;
    o.poll_interval_sec = 0.02;
    o.on_line = [this](const std::string& label, const std::string& line) { lines.emplace_back(label, line); };
    o.on_event = [this](const SupervisorEvent& e) { events.push_back(e); };
    return o;
  }
  std::vector<std::string> lines_of(const std::string& label) const {
    std::vector<std::string> out;
    for (const auto& [l, line] : lines)
      if (l == label) out.push_back(line);
    return out;
  }
  bool saw(const std::string& label, const std::string& line) const {
    for (const auto& l : lines_of(label))
      if (l == line) return true;
    return false;
  }
  int count(Kind kind) const {
    int n = 0;
    for (const auto& e : events) n += e.kind == kind;
    return n;
  }
};

// step() until `ready` holds (false after 2 s, or when the children are gone first): lets a test
// act once the children have set up.
template <typename Predicate>
bool step_until(ProcessSupervisor& supervisor, Predicate ready) {
  const auto start = std::chrono::steady_clock::now();
  while (!ready() && Seconds(std::chrono::steady_clock::now() - start).count() < 2.0) {
    if (!supervisor.step()) break;
  }
  return ready();
}

TEST(ProcessSupervisor, DeliversCompleteLabelledLinesIncludingALastLineWithoutNewline) {
  Recorder r;
  ProcessSupervisor supervisor(r.options(1.0));
  supervisor.spawn(shell("a", "printf 'one\\ntwo\\nthree'"));
  // A line written in two pieces, a while apart, arrives whole; stderr is captured too.
  supervisor.spawn(shell("b", "printf 'first\\n'; printf 'par'; sleep 0.2; printf 'tial line\\n'; echo oops >&2"));
  EXPECT_EQ(supervisor.run(), 0);
  EXPECT_EQ(r.lines_of("a"), (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(r.lines_of("b"), (std::vector<std::string>{"first", "partial line", "oops"}));
  EXPECT_TRUE(r.events.empty());
}

TEST(ProcessSupervisor, WithoutALineCallbackPrintsLinesPrefixedWithTheLabel) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProcessSupervisorOptions options;
    options.output = file;
    ProcessSupervisor supervisor(options);
    supervisor.spawn(shell("rank 1", "echo hello; printf 'no newline'"));
    EXPECT_EQ(supervisor.run(), 0);
  }
  std::rewind(file);
  std::string text;
  char buffer[256];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;) text.append(buffer, n);
  std::fclose(file);
  EXPECT_EQ(text, "[rank 1] hello\n[rank 1] no newline\n");
}

TEST(ProcessSupervisor, ReportsExitCodesByChildWithSignalsAs128PlusN) {
  Recorder r;
  ProcessSupervisorOptions options = r.options(1.0);
  options.stop_others_on_failure = false;  // every child ends on its own
  ProcessSupervisor supervisor(options);
  supervisor.spawn(shell("ok", "exit 0"));
  supervisor.spawn(shell("seven", "sleep 0.1; exit 7"));
  supervisor.spawn(shell("term", "kill -TERM $$"));
  supervisor.spawn(shell("kill", "sleep 0.2; kill -KILL $$"));
  ChildProcessOptions quiet = shell("quiet", "exit 4");
  quiet.capture_output = false;
  supervisor.spawn(quiet);
  const int result = supervisor.run();
  const auto& c = supervisor.children();
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].exit_code, 0);
  EXPECT_EQ(c[1].exit_code, 7);
  EXPECT_EQ(c[2].exit_code, 128 + SIGTERM);
  EXPECT_EQ(c[3].exit_code, 128 + SIGKILL);
  EXPECT_EQ(c[4].exit_code, 4);
  for (const auto& child : c) EXPECT_FALSE(child.running);
  EXPECT_NE(result, 0);  // the first non-zero code seen (which one depends on timing)
  EXPECT_EQ(r.count(Kind::stopping_others), 0);
  EXPECT_TRUE(supervisor.done());
  EXPECT_EQ(supervisor.running(), 0u);
}

TEST(ProcessSupervisor, PassesExtraEnvironmentVariablesReplacingOurs) {
  ::setenv("PACER_SUPERVISOR_TEST", "ours", 1);
  Recorder r;
  ProcessSupervisor supervisor(r.options(1.0));
  ChildProcessOptions child =
      shell("env", "echo \"$PACER_SUPERVISOR_TEST $RANK\"; env | grep -c '^PACER_SUPERVISOR_TEST='");
  child.environment = {"PACER_SUPERVISOR_TEST=theirs", "RANK=3"};
  supervisor.spawn(child);
  supervisor.spawn(shell("inherited", "echo \"$PACER_SUPERVISOR_TEST\""));
  EXPECT_EQ(supervisor.run(), 0);
  ::unsetenv("PACER_SUPERVISOR_TEST");
  EXPECT_EQ(r.lines_of("env"), (std::vector<std::string>{"theirs 3", "1"}));
  EXPECT_EQ(r.lines_of("inherited"), (std::vector<std::string>{"ours"}));
}

TEST(ProcessSupervisor, OneFailingChildStopsTheOthersWithTermThenKill) {
  const std::string flag =
      (std::filesystem::path(::testing::TempDir()) / ("pacer_supervisor_" + std::to_string(::getpid()))).string();
  std::filesystem::remove(flag);
  Recorder r;
  ProcessSupervisor supervisor(r.options(0.5));
  // The failing child waits until the stubborn one has set its trap.
  supervisor.spawn(shell("fails", "while [ ! -e '" + flag + "' ]; do sleep 0.02; done; exit 3"));
  supervisor.spawn(shell("sleeps", "sleep 60"));
  supervisor.spawn(shell("stubborn", "trap '' TERM; touch '" + flag + "'; sleep 60"));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(supervisor.run(), 3);
  const double seconds = Seconds(std::chrono::steady_clock::now() - start).count();
  std::filesystem::remove(flag);
  EXPECT_LT(seconds, 10.0);
  const auto& c = supervisor.children();
  EXPECT_EQ(c[0].exit_code, 3);
  EXPECT_EQ(c[1].exit_code, 128 + SIGTERM);  // at once
  EXPECT_EQ(c[2].exit_code, 128 + SIGKILL);  // a grace period later
  ASSERT_EQ(r.count(Kind::stopping_others), 1);
  EXPECT_EQ(r.events[0].kind, Kind::stopping_others);
  EXPECT_EQ(r.events[0].child, 0u);
  EXPECT_EQ(r.events[0].exit_code, 3);
  EXPECT_EQ(r.events[0].running, 2u);
  EXPECT_EQ(r.count(Kind::killing), 1);
  EXPECT_EQ(r.count(Kind::interrupt_grace_expired), 0);
}

TEST(ProcessSupervisor, An130WithoutAForwardedInterruptIsAnOrdinaryFailure) {
  Recorder r;
  ProcessSupervisor supervisor(r.options(2.0));
  supervisor.spawn(shell("fails", "exit 130"));
  supervisor.spawn(shell("sleeps", "sleep 60"));
  EXPECT_EQ(supervisor.run(), 130);
  EXPECT_EQ(supervisor.children()[1].exit_code, 128 + SIGTERM);
  EXPECT_EQ(r.count(Kind::stopping_others), 1);
}

TEST(ProcessSupervisor, ForwardedInterruptReachesEveryChildsProcessGroup) {
  Recorder r;
  std::atomic<int> interrupts{0};
  ProcessSupervisorOptions options = r.options(1.0);
  options.stop_others_on_failure = false;
  options.interrupt_count = [&] { return interrupts.load(); };
  ProcessSupervisor supervisor(options);
  // Each child shell runs a grandchild shell in the foreground that reports the SIGINT it gets
  // (and gives up after ~5 s, so that a grandchild the signal misses fails the test, not hangs it).
  const std::string grandchild =
      "sh -c 'trap \"echo grandchild interrupted; exit 5\" INT; echo ready; "
      "i=0; while [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done'";
  supervisor.spawn(shell("one", grandchild + "; exit $?"));  // not the last command: not exec'd
  supervisor.spawn(shell("two", grandchild + "; exit $?"));
  ASSERT_TRUE(step_until(supervisor, [&] { return r.saw("one", "ready") && r.saw("two", "ready"); }));
  ++interrupts;  // as a SIGINT handler would
  supervisor.run();
  EXPECT_TRUE(r.saw("one", "grandchild interrupted"));
  EXPECT_TRUE(r.saw("two", "grandchild interrupted"));
  ASSERT_EQ(r.count(Kind::interrupt_forwarded), 1);
  EXPECT_EQ(r.events[0].running, 2u);
  for (const auto& c : supervisor.children()) EXPECT_NE(c.exit_code, 0) << c.label;
}

TEST(ProcessSupervisor, AfterAForwardedInterruptAn130LeavesTheOthersTheGracePeriod) {
  Recorder r;
  ProcessSupervisor supervisor(r.options(2.5));
  supervisor.spawn(shell("interrupted", kInterruptible));
  // Ignores SIGINT (so does its sleep) and finishes on its own, well within the grace period.
  supervisor.spawn(shell("finishing", "trap '' INT; echo ready; sleep 0.7; echo finished"));
  ASSERT_TRUE(step_until(supervisor, [&] { return r.saw("interrupted", "ready") && r.saw("finishing", "ready"); }));
  supervisor.interrupt();
  EXPECT_EQ(supervisor.run(), 128 + SIGINT);
  EXPECT_EQ(supervisor.children()[0].exit_code, 128 + SIGINT);
  EXPECT_EQ(supervisor.children()[1].exit_code, 0);
  EXPECT_TRUE(r.saw("finishing", "finished"));
  EXPECT_EQ(r.count(Kind::interrupt_forwarded), 1);
  EXPECT_EQ(r.count(Kind::stopping_others), 0);
  EXPECT_EQ(r.count(Kind::interrupt_grace_expired), 0);
  EXPECT_EQ(r.count(Kind::killing), 0);
}

TEST(ProcessSupervisor, AfterAForwardedInterruptTheOthersGetTermOnceTheGracePeriodIsOver) {
  Recorder r;
  ProcessSupervisor supervisor(r.options(0.5));
  supervisor.spawn(shell("interrupted", kInterruptible));
  // exec: the SIGTERM reaches the sleep itself, not a shell that might be between fork and wait.
  supervisor.spawn(shell("lingering", "trap '' INT; echo ready; exec sleep 60"));
  ASSERT_TRUE(step_until(supervisor, [&] { return r.saw("interrupted", "ready") && r.saw("lingering", "ready"); }));
  supervisor.interrupt();
  EXPECT_EQ(supervisor.run(), 128 + SIGINT);
  EXPECT_EQ(supervisor.children()[1].exit_code, 128 + SIGTERM);
  ASSERT_EQ(r.count(Kind::interrupt_grace_expired), 1);
  EXPECT_EQ(r.events.back().kind, Kind::interrupt_grace_expired);
  EXPECT_EQ(r.events.back().running, 1u);
  EXPECT_EQ(r.count(Kind::stopping_others), 0);
}

TEST(ProcessSupervisor, AProgramThatCannotBeStartedIsASpawnError) {
  ProcessSupervisor supervisor;
  ChildProcessOptions child;
  child.argv = {"/nonexistent/program"};
  try {
    supervisor.spawn(child);
    FAIL() << "no SpawnError";
  } catch (const SpawnError& e) {
    EXPECT_EQ(e.program(), "/nonexistent/program");
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_NE(std::string(e.what()).find("cannot start '/nonexistent/program'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(supervisor.children().empty());
  EXPECT_THROW(supervisor.spawn(ChildProcessOptions{}), InputError);
  ProcessSupervisorOptions bad;
  bad.grace_sec = -1.0;
  EXPECT_THROW({ ProcessSupervisor rejected(bad); }, InputError);
}

TEST(ProcessSupervisor, TheDestructorKillsChildrenStillRunning) {
  pid_t pid = -1;
  {
    ProcessSupervisor supervisor;
    supervisor.spawn(shell("sleeps", "sleep 60"));
    pid = supervisor.children()[0].pid;
  }
  EXPECT_NE(::kill(pid, 0), 0);  // reaped: no such process
}

}  // namespace
}  // namespace pacer
