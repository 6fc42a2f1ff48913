#include "serve/guarded_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

namespace pacer {
namespace {

using ServerClock = std::chrono::steady_clock;

// Threads started as connections come, up to a cap (then connections wait their turn); each
// runs connections until the server shuts down.
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(size_t max_threads) : max_(std::max<size_t>(1, max_threads)) {}
  ~ConnectionThreads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(fn));
    // More waiting connections than idle threads: one more thread, while the cap allows.
    if (jobs_.size() > idle_ && threads_.size() < max_) threads_.emplace_back([this] { work(); });
    lock.unlock();
    ready_.notify_one();
  }

  void shutdown() override {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ++idle_;
        ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        --idle_;
        if (jobs_.empty()) return;  // stopping, nothing left
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  const size_t max_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

// Waits until `fd` has `events` or `until`; false on timeout, error, or once the server stops
// listening (*listening invalid: Ctrl-C ends every connection within a slice, not a timeout).
bool wait_for(int fd, short events, ServerClock::time_point until, const std::atomic<socket_t>& listening) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - ServerClock::now()).count();
    if (left <= 0 || listening == INVALID_SOCKET) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 200)));
    if (r > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (r < 0 && errno != EINTR) return false;
  }
}

std::string address_of(const sockaddr_storage& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    ::inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
  }
  return text;
}

// A connection's socket as httplib reads and writes it, with one more limit: while armed, every
// read ends at the request's deadline.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int fd, int io_timeout_sec, const std::atomic<socket_t>& listening)
      : fd_(fd), io_timeout_(std::chrono::seconds(io_timeout_sec)), listening_(listening) {}
  void arm(ServerClock::time_point deadline) { deadline_ = deadline; }
  void disarm() { deadline_.reset(); }

  bool is_readable() const override { return wait_for(fd_, POLLIN, read_until(), listening_); }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, ServerClock::now() + io_timeout_, listening_); }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    ssize_t n;
    while ((n = ::recv(fd_, ptr, size, 0)) < 0 && errno == EINTR) {
    }
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    while ((n = ::send(fd_, ptr, size, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t length = sizeof addr;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &length) == 0) ip = address_of(addr, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t length = sizeof addr;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &length) == 0) ip = address_of(addr, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  ServerClock::time_point read_until() const {
    const auto timeout = ServerClock::now() + io_timeout_;
    return deadline_ ? std::min(timeout, *deadline_) : timeout;
  }
  int fd_;
  ServerClock::duration io_timeout_;
  const std::atomic<socket_t>& listening_;
  std::optional<ServerClock::time_point> deadline_;
};

bool is_loopback_peer(const std::string& ip) {
  return ip.rfind("127.", 0) == 0 || ip == "::1" || ip.rfind("::ffff:127.", 0) == 0;
}

}  // namespace

GuardedHttpServer::GuardedHttpServer(const ConnectionLimits& limits) : limits_(limits) {
  const size_t cap = limits.max_connections;
  new_task_queue = [cap] { return new ConnectionThreads(cap); };
  set_keep_alive_timeout(limits.keep_alive_sec);
  set_keep_alive_max_count(limits.keep_alive_requests);
  set_read_timeout(limits.io_timeout_sec, 0);
  set_write_timeout(limits.io_timeout_sec, 0);
}

void GuardedHttpServer::widen_listen_queue(int connections) {
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, connections);  // on a listening socket: its queue anew
}

bool GuardedHttpServer::admit(const std::string& client) {
  if (client.empty() || is_loopback_peer(client)) return true;
  const std::lock_guard<std::mutex> lock(clients_mutex_);
  size_t& open = clients_[client];
  if (open >= limits_.max_connections_per_client) return false;
  ++open;
  return true;
}

void GuardedHttpServer::release(const std::string& client) {
  if (client.empty() || is_loopback_peer(client)) return;
  const std::lock_guard<std::mutex> lock(clients_mutex_);
  if (auto it = clients_.find(client); it != clients_.end() && --it->second == 0) clients_.erase(it);
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  DeadlineStream stream(sock, limits_.io_timeout_sec, svr_sock_);
  std::string client;
  int port = 0;
  stream.get_remote_ip_and_port(client, port);
  bool served = false;
  if (admit(client)) {
    const auto deadline = std::chrono::duration_cast<ServerClock::duration>(
        std::chrono::duration<double>(limits_.request_deadline_sec));
    for (size_t left = limits_.keep_alive_requests; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
      // Idle between requests (or before the first): the connection closes and its thread goes on.
      if (!wait_for(sock, POLLIN, ServerClock::now() + std::chrono::seconds(limits_.keep_alive_sec), svr_sock_)) break;
      stream.arm(ServerClock::now() + deadline);
      bool closed = false;
      served = process_request(stream, left == 1, closed, [&stream](httplib::Request&) { stream.disarm(); });
      stream.disarm();
      if (!served || closed) break;
    }
    release(client);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return served;
}

}  // namespace pacer
