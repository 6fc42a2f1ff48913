#include "distributed/rendezvous.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/error.h"
#include "core/format.h"

namespace pacer {
namespace {

// The addresses `host` resolves to (TCP); InputError naming it when it does not resolve.
std::vector<sockaddr_storage> resolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) throw InputError("launch: rendezvous address '" + host + "' does not resolve: " + ::gai_strerror(rc));
  std::vector<sockaddr_storage> out;
  for (addrinfo* p = found; p; p = p->ai_next) {
    sockaddr_storage s{};
    std::memcpy(&s, p->ai_addr, p->ai_addrlen);
    out.push_back(s);
  }
  ::freeaddrinfo(found);
  return out;
}

socklen_t length_of(const sockaddr_storage& s) { return s.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in); }

// One TCP connection attempt bounded by `seconds` (a dropped SYN would otherwise block ~2 min).
bool try_connect(const sockaddr_storage& s, double seconds, std::string& error) {
  const int fd = ::socket(s.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&s), length_of(s)) == 0;
  if (!ok && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(seconds * 1000)) == 1) {
      int so_error = 0;
      socklen_t len = sizeof(so_error);
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
      ok = so_error == 0;
      if (!ok) error = std::strerror(so_error);
    } else {
      error = "no answer";
    }
  } else if (!ok) {
    error = std::strerror(errno);
  }
  ::close(fd);
  return ok;
}

}  // namespace

RendezvousEndpoint parse_rendezvous_endpoint(const std::string& text) {
  auto bad = [&](const std::string& why) { return InputError("--rdzv-endpoint '" + text + "': " + why); };
  std::string host = text, port;
  bool has_port = false;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) throw bad("unclosed '['");
    const std::string rest = host.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') throw bad("expected :PORT after ']'");
    has_port = !rest.empty(), port = has_port ? rest.substr(1) : "";
    host = host.substr(1, close - 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string::npos && host.find(':') == colon) {
    has_port = true, port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty()) throw bad("no host (expected HOST[:PORT])");
  RendezvousEndpoint endpoint{host, std::nullopt};
  if (has_port) {
    const bool digits = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
    const int value = digits ? std::stoi(port) : 0;
    if (value < 1 || value > 65535) throw bad("port '" + port + "' is not in 1-65535");
    endpoint.port = value;
  }
  return endpoint;
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error(std::string("launch: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw Error(std::string("launch: cannot find a free port: ") + std::strerror(errno));
  }
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

std::string check_rendezvous_address_is_local(const std::string& host, int port, bool one_node) {
  for (const sockaddr_storage& s : resolve(host, 0)) {
    const int fd = ::socket(s.ss_family, SOCK_STREAM, 0);
    if (fd < 0) continue;
    const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&s), length_of(s)) == 0;
    ::close(fd);
    if (ok) return "";
  }
  const std::string why = "'" + host + "' (port " + std::to_string(port) +
                          ") is not an address of this machine, and node 0's ranks serve the rendezvous";
  if (one_node) throw InputError("launch: " + why + "; give this machine's address (or leave --master-addr out)");
  return why + "; the other nodes must reach it there";
}

bool wait_for_rendezvous(const std::string& host, int port, double timeout_sec, const std::atomic<int>& interrupts,
                         const std::function<void()>& on_waiting) {
  const auto addresses = resolve(host, port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_sec);
  std::string last_error = "no address";
  bool announced = false;
  while (interrupts.load() == 0) {
    for (const sockaddr_storage& s : addresses) {
      const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      if (try_connect(s, std::clamp(left, 0.05, 1.0), last_error)) return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw InputError("launch: cannot reach the rendezvous at " + host + ":" + std::to_string(port) + " (" + last_error +
                       ") within " + format_double("%g", timeout_sec) +
                       " s; is `pacer launch --node-rank 0` running there, with the same --master-port?");
    }
    if (!announced && on_waiting) on_waiting();
    announced = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

std::vector<std::string> rank_environment(const LaunchLayout& layout, int local_rank, const std::string& master_addr,
                                          int master_port, const std::string& rendezvous_file) {
  std::vector<std::string> env = {"RANK=" + std::to_string(layout.rank_of(local_rank)),
                                  "WORLD_SIZE=" + std::to_string(layout.nnodes * layout.processes),
                                  "LOCAL_RANK=" + std::to_string(local_rank),
                                  "LOCAL_WORLD_SIZE=" + std::to_string(layout.processes),
                                  "GROUP_RANK=" + std::to_string(layout.node_rank),
                                  "MASTER_ADDR=" + master_addr,
                                  "MASTER_PORT=" + std::to_string(master_port)};
  if (!rendezvous_file.empty()) env.push_back("PACER_RENDEZVOUS_FILE=" + rendezvous_file);
  return env;
}

}  // namespace pacer
