#include "run/trial_channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/error.h"
#include "core/json_input.h"

namespace pacer {
namespace {

using Json = nlohmann::json;

// The longest message (an outcome's, a release's) the worker records; the rest is cut with a note.
constexpr size_t kMaxMessage = 64u << 10;
// The most evals one attempt may record: far past any budget's (a flood would only bloat the store).
constexpr int64_t kMaxEvals = 1000000;

// JSON has no NaN or infinity; a diverged eval's loss is one: written as a string.
Json number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
}
double to_number(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  throw InputError("not a number: " + j.dump(-1, ' ', false, Json::error_handler_t::replace).substr(0, 80));
}
template <typename T>
Json optional_json(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return number(*v);
  else return *v;
}

Json eval_json(const EvalRecord& e) {
  Json metrics = Json::object();
  for (const auto& [name, value] : e.metrics) metrics[name] = number(value);
  return {{"step", e.step},
          {"submission_time", number(e.accumulated_submission_time)},
          {"eval_time", number(e.accumulated_eval_time)},
          {"logging_time", number(e.accumulated_logging_time)},
          {"total_duration", number(e.total_duration)},
          {"preemption_count", e.preemption_count},
          {"metrics", metrics}};
}
EvalRecord eval_from(const Json& j) {
  EvalRecord e;
  e.step = j.at("step").get<int64_t>();
  e.accumulated_submission_time = to_number(j.at("submission_time"));
  e.accumulated_eval_time = to_number(j.at("eval_time"));
  e.accumulated_logging_time = to_number(j.at("logging_time"));
  e.total_duration = to_number(j.at("total_duration"));
  e.preemption_count = j.at("preemption_count").get<int64_t>();
  for (const auto& [name, value] : j.at("metrics").items()) e.metrics[name] = to_number(value);
  return e;
}

std::string capped(std::string message) {
  if (message.size() > kMaxMessage) {
    message.resize(kMaxMessage);
    message += " [... cut by the worker: over " + std::to_string(kMaxMessage) + " bytes]";
  }
  return message;
}

Json outcome_json(const TrialOutcome& o) {
  return {{"status", to_string(o.status)},
          {"stop_reason", to_string(o.stop_reason)},
          {"message", o.message},
          {"steps", o.steps},
          {"submission_time", number(o.submission_time)},
          {"eval_time", number(o.eval_time)},
          {"total_duration", number(o.total_duration)},
          {"time_to_target", optional_json(o.time_to_target)},
          {"steps_to_target", optional_json(o.steps_to_target)},
          {"eval_index_to_target", optional_json(o.eval_index_to_target)},
          {"best_validation", optional_json(o.best_validation)},
          {"threads", o.threads},
          {"device", o.device}};
}
TrialOutcome outcome_from(const Json& j) {
  TrialOutcome o;
  const std::string status = j.at("status").get<std::string>();
  const auto parsed = parse_trial_status(status);
  if (!parsed) throw InputError("unknown trial status '" + status.substr(0, 40) + "'");
  o.status = *parsed;
  o.stop_reason = parse_stop_reason(j.at("stop_reason").get<std::string>());
  o.message = capped(j.at("message").get<std::string>());
  o.steps = j.at("steps").get<int64_t>();
  o.submission_time = to_number(j.at("submission_time"));
  o.eval_time = to_number(j.at("eval_time"));
  o.total_duration = to_number(j.at("total_duration"));
  if (!j.at("time_to_target").is_null()) o.time_to_target = to_number(j.at("time_to_target"));
  if (!j.at("steps_to_target").is_null()) o.steps_to_target = j.at("steps_to_target").get<int64_t>();
  if (!j.at("eval_index_to_target").is_null()) o.eval_index_to_target = j.at("eval_index_to_target").get<int64_t>();
  if (!j.at("best_validation").is_null()) o.best_validation = to_number(j.at("best_validation"));
  o.threads = j.at("threads").get<int>();
  o.device = j.at("device").get<std::string>().substr(0, 64);
  return o;
}

// Whole writes, on a socket whose reader may be gone (no SIGPIPE: an error instead).
bool send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Text for the other side: invalid UTF-8 (a submission's exception message) replaced, not thrown on.
std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

enum class LineRead { line, end, too_long };
// The next '\n'-ended line of `fd` into `line`, keeping what came after it in `pending`.
LineRead read_line(int fd, std::string& pending, std::string& line) {
  for (;;) {
    const size_t end = pending.find('\n');
    if (end != std::string::npos) {
      line = pending.substr(0, end);
      pending.erase(0, end + 1);
      return LineRead::line;
    }
    if (pending.size() > kTrialChannelMaxLine) return LineRead::too_long;
    char buffer[65536];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return LineRead::end;
    pending.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

// ---- the child's side ----

ChannelLedger::ChannelLedger(int fd) : fd_(fd) {}

ChannelLedger::~ChannelLedger() {
  if (fd_ >= 0) ::close(fd_);
}

std::string ChannelLedger::request(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!send_all(fd_, line + "\n")) throw Error("the trial's channel to its worker is closed (the worker is gone?)");
  std::string reply;
  if (read_line(fd_, pending_, reply) != LineRead::line) {
    throw Error("the trial's worker closed its channel (it refused a request; its message says why)");
  }
  const Json j = Json::parse(reply);
  if (j.contains("lease_lost")) throw LeaseLost(j.at("lease_lost").get<std::string>());
  if (j.contains("error")) throw Error("the trial's worker: " + j.at("error").get<std::string>());
  return reply;
}

bool ChannelLedger::heartbeat() {
  return Json::parse(request(Json{{"op", "heartbeat"}}.dump())).at("ours").get<bool>();
}

void ChannelLedger::record_eval(int64_t eval_index, const EvalRecord& eval) {
  request(dump(Json{{"op", "eval"}, {"index", eval_index}, {"eval", eval_json(eval)}}));
}

void ChannelLedger::finish(const TrialOutcome& outcome) {
  request(dump(Json{{"op", "finish"}, {"outcome", outcome_json(outcome)}}));
}

void ChannelLedger::release(const std::string& message) {
  request(dump(Json{{"op", "release"}, {"message", message}}));
}

std::optional<int64_t> ChannelLedger::best_eval_index_to_target() {
  const Json value = Json::parse(request(Json{{"op", "best_index"}}.dump())).at("value");
  if (value.is_null()) return std::nullopt;
  return value.get<int64_t>();
}

std::optional<int64_t> ChannelLedger::best_steps_to_goal(const TrainingGoal& goal) {
  const Json value = Json::parse(request(Json{{"op", "best_goal_steps"},
                                              {"metric", goal.metric},
                                              {"value", goal.value},
                                              {"higher_is_better", goal.higher_is_better}}
                                             .dump()))
                         .at("value");
  if (value.is_null()) return std::nullopt;
  return value.get<int64_t>();
}

FastestTimes ChannelLedger::fastest() {
  const Json j = Json::parse(request(Json{{"op", "fastest"}}.dump()));
  return FastestTimes{to_number(j.at("seconds")), to_number(j.at("steps"))};
}

// ---- the worker's side ----

TrialChannelServer::TrialChannelServer(std::string store_path, const TrialRecord& trial, const StudyRecord& study,
                                       std::string owner, const WorkerOptions& options)
    : store_path_(std::move(store_path)), owner_(std::move(owner)), trial_(trial), study_(study), options_(options) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw Error(std::string("cannot open a contained trial's channel: socketpair: ") + std::strerror(errno));
  }
  server_fd_ = fds[0];
  child_fd_ = fds[1];
  thread_ = std::thread([this] { serve(); });
}

TrialChannelServer::~TrialChannelServer() {
  stop();
  if (server_fd_ >= 0) ::close(server_fd_);
  close_child_end();
}

void TrialChannelServer::close_child_end() {
  if (child_fd_ >= 0) ::close(child_fd_);
  child_fd_ = -1;
}

std::string TrialChannelServer::stop() {
  if (thread_.joinable()) {
    // The child is gone: its requests still queued are served, then the channel reads its end. A
    // process it left holding the channel (one the worker could not kill) gets 5 s.
    close_child_end();
    for (int waited = 0; waited < 500 && !served_all_.load(); ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::shutdown(server_fd_, SHUT_RDWR);
    thread_.join();
  }
  return complaint_;
}

void TrialChannelServer::serve() {
  std::string pending, line;
  try {
    StudyStore store(store_path_, [] {
      StudyStoreOptions o;
      o.connect_retry_sec = 60;  // a PostgreSQL server that is restarting
      return o;
    }());
    StoreLedger ledger(store, store_path_, trial_, study_, owner_, options_);
    for (;;) {
      const LineRead read = read_line(server_fd_, pending, line);
      if (read == LineRead::end) break;
      if (read == LineRead::too_long) {
        complaint_ = "its process sent the worker a line over " + std::to_string(kTrialChannelMaxLine) + " bytes";
        break;
      }
      std::string reply;
      try {
        const auto start = std::chrono::steady_clock::now();
        reply = answer(line, ledger);
        store_seconds_ = store_seconds_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ++store_calls_;
      } catch (const LeaseLost& e) {
        reply = dump(Json{{"lease_lost", e.what()}});
      } catch (const std::exception& e) {
        if (!complaint_.empty()) break;  // refused: the channel closes, the trial fails with why
        reply = dump(Json{{"error", e.what()}});
      }
      if (!send_all(server_fd_, reply + "\n")) break;
    }
  } catch (const std::exception& e) {
    complaint_ = std::string("the worker could not serve its trial's records: ") + e.what();
  }
  ::shutdown(server_fd_, SHUT_RDWR);
  served_all_ = true;
}

std::string TrialChannelServer::answer(const std::string& line, StoreLedger& ledger) {
  Json request;
  std::string op;
  try {
    check_json_input(line, "the request", {8, kTrialChannelMaxLine});  // its deepest has 3 levels
    request = Json::parse(line);
    op = request.at("op").get<std::string>();
  } catch (const std::exception& e) {
    complaint_ = "its process sent the worker a malformed request (" + std::string(e.what()).substr(0, 200) + ")";
    throw;
  }
  auto refuse = [&](const std::string& why) {
    complaint_ = "its process sent the worker " + why;
    throw Error(complaint_);
  };
  const auto parsed = [&](auto&& read) {
    try {
      return read();
    } catch (const nlohmann::json::exception& e) {
      refuse("a malformed '" + op + "' request (" + std::string(e.what()).substr(0, 200) + ")");
      throw;  // not reached
    } catch (const InputError& e) {
      refuse("a malformed '" + op + "' request (" + std::string(e.what()).substr(0, 200) + ")");
      throw;
    }
  };
  if (op == "heartbeat") return Json{{"ok", true}, {"ours", ledger.heartbeat()}}.dump();
  if (op == "best_index") return Json{{"ok", true}, {"value", optional_json(ledger.best_eval_index_to_target())}}.dump();
  if (op == "best_goal_steps") {
    const TrainingGoal goal = parsed([&] {
      return TrainingGoal{request.at("metric").get<std::string>(), request.at("value").get<double>(),
                          request.at("higher_is_better").get<bool>()};
    });
    return Json{{"ok", true}, {"value", optional_json(ledger.best_steps_to_goal(goal))}}.dump();
  }
  if (op == "fastest") {
    const FastestTimes f = ledger.fastest();
    return Json{{"ok", true}, {"seconds", number(f.seconds)}, {"steps", number(f.steps)}}.dump();
  }
  if (ended_) refuse("a '" + op + "' request after its trial's outcome");
  if (op == "eval") {
    const int64_t index = parsed([&] { return request.at("index").get<int64_t>(); });
    if (index < 0 || index >= kMaxEvals) refuse("an eval index out of range (" + std::to_string(index) + ")");
    const EvalRecord eval = parsed([&] { return eval_from(request.at("eval")); });
    ledger.record_eval(index, eval);
    ++evals_recorded_;
    return Json{{"ok", true}}.dump();
  }
  if (op == "finish") {
    const TrialOutcome outcome = parsed([&] { return outcome_from(request.at("outcome")); });
    ledger.finish(outcome);
    ended_ = true;
    return Json{{"ok", true}}.dump();
  }
  if (op == "release") {
    const std::string message = parsed([&] { return capped(request.at("message").get<std::string>()); });
    ledger.release(message);
    ended_ = true;
    return Json{{"ok", true}}.dump();
  }
  refuse("an unknown request '" + op.substr(0, 40) + "'");
  return {};
}

}  // namespace pacer
