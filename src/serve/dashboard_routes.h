#pragma once
// The URLs of `pacer serve`, apart from any HTTP library, so that tests call them in process:
//
//   GET /                          the studies, the board's progress and the leaderboard (page)
//   GET /study/<id>                a study's trials, sortable (page)
//   GET /study/<id>/analysis       `pacer analyze`'s page of that study
//   GET /trial/<id>                a trial's evals and curve (page)
//   GET /api/overview              JSON the pages poll (Dashboard::overview_json)
//   GET /api/leaderboard?part=P&time=seconds|steps
//   GET /api/profiles.svg?part=P&time=seconds|steps
//   GET /api/study/<id>, /api/trial/<id>, /api/trial/<id>/curve.svg
//   GET /assets/dashboard.js, /assets/dashboard.css   (compiled in: no file is ever read)
//
// Anything else is 404; a method other than GET or HEAD is 405; a Host header that names none of
// the allowed hosts is 403 (a page of another site that resolves its name to 127.0.0.1, DNS
// rebinding, cannot read the store through a browser). Errors are JSON {"error": ...} under
// /api/ and a short HTML page elsewhere: 404 for an unknown id, 400 for a bad parameter, 503 while
// the store cannot be read (deleted, locked, damaged).
//
//   pacer::HttpReply r = pacer::route_dashboard_request(dashboard, {"GET", "/api/overview", {}, "127.0.0.1:8050"}, {});
//   if (r.status == 200) use(r.body);
#include <map>
#include <string>
#include <vector>

#include "serve/dashboard.h"

namespace pacer {

struct HttpRequestView {
  std::string method, path;                 // path without the query, already percent-decoded
  std::map<std::string, std::string> query;
  std::string host;                         // the Host header
};

struct HttpReply {
  int status = 200;
  std::string content_type;
  std::string body;
};

struct RouteOptions {
  // Host header values accepted ("127.0.0.1:8050", "localhost:8050"); empty: any (a server bound
  // to another address on purpose, reached by names it cannot know).
  std::vector<std::string> allowed_hosts;
  int poll_ms = 5000;  // how often the pages ask for news
};

HttpReply route_dashboard_request(Dashboard& dashboard, const HttpRequestView& request, const RouteOptions& options);

// The Host values a server on HOST:PORT is reached by from this machine (loopback names only).
std::vector<std::string> loopback_host_names(const std::string& host, int port);

}  // namespace pacer
