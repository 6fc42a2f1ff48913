#pragma once
// The channel over which a contained trial's process hands its records to the worker that started
// it, so that the process running untrusted code never writes the study store: a socket pair, one
// JSON line per request and per reply. The worker's side (TrialChannelServer) serves one trial,
// on a thread and a store connection of its own, for that trial and lease only: the child names
// no trial, owner or attempt, so the most a submission can forge through it is its own trial's
// records, which it could already change in its own process.
//
//   pacer::TrialChannelServer server(store_path, trial, study, owner, options);
//   child.inherited_fds = {{server.child_fd(), 3}};          // `pacer contained-trial --channel-fd 3`
//   supervisor.spawn(child);
//   server.close_child_end();
//   ... the child runs; in it: pacer::ChannelLedger ledger(3); ledger.record_eval(0, eval); ...
//   const std::string complaint = server.stop();             // after the child is gone
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "run/trial_ledger.h"

namespace pacer {

// The longest request or reply line: far above any eval or outcome (an outcome's message is
// capped well below it), small enough that a child cannot make the worker hold much.
inline constexpr size_t kTrialChannelMaxLine = 4u << 20;
// The channel's descriptor number in the child (`--channel-fd`).
inline constexpr int kChannelFdInChild = 3;

// The child's ledger: each call one request and its reply. Thread-safe (the heartbeat thread and
// the trial share it). Error when the worker refuses a request or the channel is gone.
class ChannelLedger : public TrialLedger {
 public:
  explicit ChannelLedger(int fd);
  ~ChannelLedger() override;

  bool heartbeat() override;
  void record_eval(int64_t eval_index, const EvalRecord& eval) override;
  void finish(const TrialOutcome& outcome) override;
  void release(const std::string& message) override;
  std::optional<int64_t> best_eval_index_to_target() override;
  std::optional<int64_t> best_steps_to_goal(const TrainingGoal& goal) override;
  FastestTimes fastest() override;

 private:
  std::string request(const std::string& line);  // the reply's JSON text
  int fd_;
  std::string pending_;  // read past the last reply
  std::mutex mutex_;
};

class TrialChannelServer {
 public:
  TrialChannelServer(std::string store_path, const TrialRecord& trial, const StudyRecord& study, std::string owner,
                     const WorkerOptions& options);
  ~TrialChannelServer();  // stop()
  TrialChannelServer(const TrialChannelServer&) = delete;
  TrialChannelServer& operator=(const TrialChannelServer&) = delete;

  int child_fd() const { return child_fd_; }
  // After the child started: the child's end is closed here, so the channel ends with the child.
  void close_child_end();
  // Ends the service (the child is gone, or whatever it left holding the channel) and returns what
  // the worker refused of the child's requests (a malformed line, a write after the outcome), or "".
  std::string stop();

  int64_t evals_recorded() const { return evals_recorded_; }
  int64_t store_calls() const { return store_calls_; }
  double store_seconds() const { return store_seconds_; }

 private:
  void serve();
  std::string answer(const std::string& line, StoreLedger& ledger);

  std::string store_path_, owner_;
  TrialRecord trial_;
  StudyRecord study_;
  const WorkerOptions& options_;
  int server_fd_ = -1, child_fd_ = -1;
  bool ended_ = false;  // the outcome or a release came: nothing more is written
  std::string complaint_;
  std::atomic<int64_t> evals_recorded_{0}, store_calls_{0};
  std::atomic<double> store_seconds_{0.0};
  std::atomic<bool> served_all_{false};
  std::thread thread_;
};

}  // namespace pacer
