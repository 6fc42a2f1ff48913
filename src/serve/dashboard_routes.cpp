#include "serve/dashboard_routes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "serve/dashboard_assets.h"

namespace pacer {
namespace {

const char* kJson = "application/json; charset=utf-8";
const char* kHtml = "text/html; charset=utf-8";
const char* kSvg = "image/svg+xml";

// "/study/12/analysis" -> {"study", "12", "analysis"}; empty segments dropped.
std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t next = std::min(path.find('/', at), path.size());
    if (next > at) out.push_back(path.substr(at, next - at));
    at = next + 1;
  }
  return out;
}

// An id is 1 to 18 digits (no sign, no spaces): anything else names nothing.
bool parse_id(const std::string& text, int64_t& id) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  id = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

HttpReply error_reply(int status, bool api, const std::string& message) {
  if (api) return {status, kJson, nlohmann::json({{"error", message}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
  const std::string title = status == 404 ? "Not found" : status == 503 ? "Store unavailable" : "Pacer serve";
  return {status, kHtml, dashboard_message_page(title, message)};
}

std::string query_or(const HttpRequestView& r, const std::string& key, const std::string& fallback) {
  const auto found = r.query.find(key);
  return found == r.query.end() || found->second.empty() ? fallback : found->second;
}

HttpReply route(Dashboard& d, const HttpRequestView& r, const RouteOptions& options) {
  const std::vector<std::string> s = segments(r.path);
  int64_t id = 0;
  const auto page = [&](const std::string& kind) { return HttpReply{200, kHtml, dashboard_page_html(kind, id, options.poll_ms)}; };
  if (s.empty()) return page("index");
  if (s[0] == "assets" && s.size() == 2) {
    if (s[1] == "dashboard.js") return {200, "text/javascript; charset=utf-8", dashboard_js()};
    if (s[1] == "dashboard.css") return {200, "text/css; charset=utf-8", dashboard_css()};
  }
  if (s[0] == "study" && s.size() >= 2 && parse_id(s[1], id)) {
    if (s.size() == 2) return page("study");
    if (s.size() == 3 && s[2] == "analysis") return {200, kHtml, d.analysis_html(id)};
  }
  if (s[0] == "trial" && s.size() == 2 && parse_id(s[1], id)) return page("trial");
  if (s[0] == "api") {
    const std::string part = query_or(r, "part", "external"), axis = query_or(r, "time", "seconds");
    if (s.size() == 2 && s[1] == "overview") return {200, kJson, d.overview_json()};
    if (s.size() == 2 && s[1] == "leaderboard") return {200, kJson, d.leaderboard_json(part, axis)};
    if (s.size() == 2 && s[1] == "profiles.svg") return {200, kSvg, d.profile_svg(part, axis)};
    if (s.size() == 3 && s[1] == "study" && parse_id(s[2], id)) return {200, kJson, d.study_json(id)};
    if (s.size() == 3 && s[1] == "trial" && parse_id(s[2], id)) return {200, kJson, d.trial_json(id)};
    if (s.size() == 4 && s[1] == "trial" && parse_id(s[2], id) && s[3] == "curve.svg") {
      return {200, kSvg, d.trial_curve_svg(id)};
    }
  }
  throw NotFoundError("nothing at " + r.path);
}

}  // namespace

HttpReply route_dashboard_request(Dashboard& dashboard, const HttpRequestView& request, const RouteOptions& options) {
  const bool api = request.path.rfind("/api/", 0) == 0;
  if (request.method != "GET" && request.method != "HEAD") {
    return error_reply(405, api, "pacer serve is read-only: " + request.method + " is not allowed");
  }
  if (!options.allowed_hosts.empty() &&
      std::find(options.allowed_hosts.begin(), options.allowed_hosts.end(), request.host) == options.allowed_hosts.end()) {
    return error_reply(403, api, "this server answers to " + options.allowed_hosts.front() + ", not to host '" +
                                     request.host + "'");
  }
  try {
    HttpReply reply = route(dashboard, request, options);
    if (request.method == "HEAD") reply.body.clear();
    return reply;
  } catch (const NotFoundError& e) {
    return error_reply(404, api, e.what());
  } catch (const StoreUnavailable& e) {
    return error_reply(503, api, e.what());
  } catch (const InputError& e) {  // a malformed parameter (time=hours)
    return error_reply(400, api, e.what());
  } catch (const std::exception& e) {  // a bug: the page says so, the server keeps running
    return error_reply(500, api, std::string("internal error: ") + e.what());
  }
}

std::vector<std::string> loopback_host_names(const std::string& host, int port) {
  const std::string p = ":" + std::to_string(port);
  std::vector<std::string> names = {"127.0.0.1" + p, "localhost" + p, "[::1]" + p};
  if (port == 80) names.insert(names.end(), {"127.0.0.1", "localhost", "[::1]"});  // browsers leave out :80
  if (host != "127.0.0.1" && host != "localhost" && host != "::1") names.insert(names.begin(), host + p);
  return names;
}

}  // namespace pacer
