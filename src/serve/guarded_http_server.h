#pragma once
// cpp-httplib's server, guarded against clients that are slow or idle on purpose. httplib (0.11)
// gives each connection one thread of a fixed pool and times each read, not each request: 12
// clients sending a header line every 2 s, or 300 connections that send nothing, held every thread
// and `pacer serve` answered no one for as long as they lasted. This server
//   - gives each connection a thread of its own, started when needed, up to max_connections
//     (a connection waiting for its request costs a thread, not the server);
//   - cuts a request whose line and headers have not all arrived request_deadline_sec after its
//     first byte could be read (a slow-header client is closed, whatever its pace);
//   - closes a connection idle for keep_alive_sec between requests;
//   - holds a remote (non-loopback) address to max_connections_per_client at once;
//   - queues max_connections connections not yet accepted (widen_listen_queue; httplib's is 5).
// What a request does once read (its handler, its reply) is not hurried.
//
//   pacer::GuardedHttpServer server(limits);   // then as an httplib::Server: Get(...), bind, listen
#include <httplib.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace pacer {

struct ConnectionLimits {
  size_t max_connections = 512;             // connections served at once (each its thread)
  size_t max_connections_per_client = 32;   // from one remote address (loopback: no limit)
  double request_deadline_sec = 5.0;        // a request's line and headers, from its first byte
  int keep_alive_sec = 2;                   // idle between requests, then closed
  int io_timeout_sec = 10;                  // one read or write once a request is being served
  size_t keep_alive_requests = 100;         // requests on one connection
};

class GuardedHttpServer : public httplib::Server {
 public:
  explicit GuardedHttpServer(const ConnectionLimits& limits);
  // After bind_to_port: a listen queue of `connections` (httplib's is 5: a burst of connections,
  // an attacker's included, left a normal client's SYN unanswered for seconds).
  void widen_listen_queue(int connections);

 private:
  // httplib's per-connection entry point (a private virtual of httplib::Server, overridden).
  bool process_and_close_socket(socket_t sock) override;
  bool admit(const std::string& client);
  void release(const std::string& client);

  ConnectionLimits limits_;
  std::mutex clients_mutex_;
  std::map<std::string, size_t> clients_;  // open connections by remote address (non-loopback)
};

}  // namespace pacer
