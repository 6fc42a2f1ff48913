#pragma once
// `pacer serve`'s HTTP server: cpp-httplib (Debian's libcpp-httplib) answering every request
// through serve/dashboard_routes.h, with the limits a server that anyone on the machine can
// reach needs: a bounded thread pool, read and write timeouts, a small request size, no request
// body, a strict Content-Security-Policy, no caching. It binds to the loopback address unless told
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
  int threads = 8;                 // requests served at once (a browser opens up to 6 connections)
  int poll_ms = 5000;              // how often the pages ask for news
  int timeout_sec = 10;            // reading a request, writing a reply
  size_t max_request_bytes = 8192; // a request body (none is expected); the request line and headers: 8 KiB each
  const std::atomic<bool>* stop = nullptr;  // null: until the process ends
  std::function<void(const std::string& url)> on_listening;  // "http://127.0.0.1:8050/"
};

bool is_loopback_address(const std::string& host);  // 127.0.0.0/8, ::1, localhost

// Serves until *options.stop. InputError when the address cannot be bound (in use, not this
// machine's).
void serve_dashboard(Dashboard& dashboard, const ServeOptions& options);

}  // namespace pacer
