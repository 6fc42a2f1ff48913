#include "serve/dashboard_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "serve/dashboard_routes.h"
#include "serve/guarded_http_server.h"

namespace pacer {
namespace {

// The page's scripts and styles come from this server only; it can be framed by no other site.
const char* kContentPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

void set_headers(httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Content-Security-Policy", kContentPolicy);
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("X-Frame-Options", "DENY");
}

// At most N requests handled at once (--threads): connections each have a thread of their own
// (serve/guarded_http_server.h), the work of answering is bounded here.
class Handlers {
 public:
  explicit Handlers(int n) : free_(std::max(1, n)) {}
  template <typename F>
  void run(F&& handle) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      freed_.wait(lock, [this] { return free_ > 0; });
      --free_;
    }
    struct Release {
      Handlers& h;
      ~Release() {
        {
          const std::lock_guard<std::mutex> lock(h.mutex_);
          ++h.free_;
        }
        h.freed_.notify_one();
      }
    } release{*this};
    handle();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  int free_;
};

std::string url_host(const std::string& host) { return host.find(':') != std::string::npos ? "[" + host + "]" : host; }

// What the routes never see: a method but GET and HEAD, a range, and what httplib refuses itself.
void refuse_what_is_not_served(httplib::Server& server) {
  // Before httplib reads a body or looks at a range: anything but GET and HEAD is 405 and the
  // connection closes (a chunked or unsized body would otherwise be read whole, whatever its size),
  // and a Range header is refused (httplib would copy the reply once per range asked for).
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_header("Connection", "close");
      res.set_content("pacer serve is read-only: " + req.method + " is not allowed\n", "text/plain; charset=utf-8");
    } else if (req.has_header("Range")) {
      res.status = 416;
      res.set_content("pacer serve: range requests are not served\n", "text/plain; charset=utf-8");
    } else {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    set_headers(res);
    return httplib::Server::HandlerResponse::Handled;
  });
  // Requests httplib refuses itself (an oversized line or body, a malformed request) get a body
  // that says why instead of an empty one.
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* why = res.status == 413   ? "request too large"
                      : res.status == 414 ? "request line too long"
                      : res.status == 431 ? "request headers too large"
                      : res.status == 400 ? "malformed request"
                                          : "request refused";
    res.set_content("pacer serve: " + std::to_string(res.status) + " " + why + "\n", "text/plain; charset=utf-8");
    set_headers(res);
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("pacer serve: internal error\n", "text/plain; charset=utf-8");
  });
}

}  // namespace

bool is_loopback_address(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;  // 127.0.0.0/8
  in6_addr v6{};
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

void serve_dashboard(Dashboard& dashboard, const ServeOptions& options) {
  ConnectionLimits limits;
  limits.max_connections = options.max_connections;
  limits.max_connections_per_client = options.max_connections_per_client;
  limits.request_deadline_sec = options.request_deadline_sec;
  limits.io_timeout_sec = options.timeout_sec;
  GuardedHttpServer server(limits);
  Handlers handlers(options.threads);
  server.set_payload_max_length(options.max_request_bytes);
  server.set_tcp_nodelay(true);  // a reply is written in pieces: without it, delayed ACKs add 40 ms to each

  RouteOptions routes;
  routes.poll_ms = options.poll_ms;
  const auto handle = [&](const httplib::Request& req, httplib::Response& res) {
    handlers.run([&] {
      HttpRequestView view;
      view.method = req.method;
      view.path = req.path;
      for (const auto& [key, value] : req.params) view.query.emplace(key, value);
      view.host = req.get_header_value("Host");
      HttpReply reply = route_dashboard_request(dashboard, view, routes);
      res.status = reply.status;
      res.set_content(reply.body, reply.content_type.c_str());
      set_headers(res);
    });
  };
  server.Get(".*", handle);
  refuse_what_is_not_served(server);
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
  } else if (!server.bind_to_port(options.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    throw InputError("cannot listen on " + url_host(options.host) + ":" + std::to_string(options.port) +
                     " (in use by another program, or not an address of this machine): pick another with --port, "
                     "or --port 0 for any free one");
  }
  server.widen_listen_queue(static_cast<int>(std::min<size_t>(options.max_connections, 4096)));
  // Bound to loopback: only loopback names, so that a web page cannot reach the store by DNS rebinding.
  if (is_loopback_address(options.host)) routes.allowed_hosts = loopback_host_names(options.host, port);

  std::thread listener([&server] { server.listen_after_bind(); });
  // stop() does nothing before the listener runs: wait for it, so an early Ctrl-C is not lost.
  for (int i = 0; i < 5000 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (options.on_listening) options.on_listening("http://" + url_host(options.host) + ":" + std::to_string(port) + "/");
  while (!(options.stop && options.stop->load())) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.stop();
  listener.join();
}

}  // namespace pacer
