#pragma once
// `pacer serve`'s HTTP server: cpp-httplib (Debian's libcpp-httplib) answering every request
// through serve/dashboard_routes.h, with the limits a server that anyone on the machine can
// reach needs: slow or idle clients stall no one (serve/guarded_http_server.h: a thread per
// connection up to a cap, a deadline for each request's headers, a cap per remote address), a
// bounded number of requests handled at once, read and write timeouts, a small request size, no
// request body, a strict Content-Security-Policy, no caching. It binds to the loopback address unless told
// otherwise (the command asks for an explicit flag and warns), and then accepts only loopback Host
// names. Requests are answered until *stop becomes true.
//
//   pacer::ServeOptions o;
//   o.port = 0;  // any free port
//   o.on_listening = [](const std::string& url) { std::printf("%s\n", url.c_str()); };
//   pacer::serve_dashboard(dashboard, o);
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "serve/dashboard.h"

namespace pacer {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8050;                 // 0: a free port, chosen by the system
  int threads = 8;                 // requests handled at once (a browser opens up to 6 connections)
  size_t max_connections = 512;    // connections open at once, each waiting on a thread of its own
  size_t max_connections_per_client = 32;  // from one remote address (loopback: no cap)
  double request_deadline_sec = 5; // a request's line and headers, from its first byte
  int poll_ms = 5000;              // how often the pages ask for news
  int timeout_sec = 10;            // one read or write of a request being served
  size_t max_request_bytes = 8192; // a request body (none is expected); the request line and headers: 8 KiB each
  const std::atomic<bool>* stop = nullptr;  // null: until the process ends
  std::function<void(const std::string& url)> on_listening;  // "http://127.0.0.1:8050/"
};

bool is_loopback_address(const std::string& host);  // 127.0.0.0/8, ::1, localhost

// Serves until *options.stop. InputError when the address cannot be bound (in use, not this
// machine's).
void serve_dashboard(Dashboard& dashboard, const ServeOptions& options);

}  // namespace pacer
