#include <cstdio>
#include <memory>

#include "commands.h"
#include "core/error.h"
#include "interrupt.h"
#include "serve/dashboard.h"
#include "serve/dashboard_server.h"

namespace pacer::cli {
namespace {

struct ServeArgs {
  std::string store;
  ServeOptions server;
  DashboardOptions dashboard;
  bool expose = false;
  double poll_sec = 5.0;
};

}  // namespace

Action add_serve_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<ServeArgs>();
  app.add_option("store", a->store, "A study store (SQLite file or postgresql:// URI) that pacer tune or pacer board writes")
      ->required();
  app.add_option("--port", a->server.port, "TCP port (0: any free one; the URL is printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  app.add_option("--host", a->server.host, "Address to listen on; other than loopback only with --expose")
      ->capture_default_str();
  app.add_flag("--expose", a->expose,
               "Allow --host to be an address other machines reach: anyone who reaches it reads the whole store, "
               "without a password (prefer an SSH tunnel)");
  app.add_option("--poll", a->poll_sec, "Seconds between a page's updates")->check(CLI::Range(1.0, 3600.0))->capture_default_str();
  app.add_option("--score-every", a->dashboard.score_every_sec,
                 "Rescore a leaderboard at most this often while trials finish (seconds; scoring a board costs "
                 "a fraction of a second of CPU)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  app.add_option("--threads", a->server.threads, "Requests handled at once (connections each have a thread of their own, up to 512)")->check(CLI::Range(1, 64))->capture_default_str();
  app.add_option("--rules", a->dashboard.rules, "Scoring rules preset: v0.5 or v0.6 (default: the current)")
      ->check(CLI::IsMember({"v0.5", "v0.6"}));
  return [a]() -> int {
    if (!is_loopback_address(a->server.host) && !a->expose) {
      throw InputError("--host " + a->server.host + " would serve the store to every machine that reaches this one, "
                       "without a password: add --expose to mean it, or keep the default 127.0.0.1 and reach it "
                       "through a tunnel (ssh -L 8050:127.0.0.1:8050 THIS_HOST)");
    }
    Dashboard dashboard(a->store, a->dashboard);
    dashboard.check();  // not a store: exit 2 before listening
    a->server.poll_ms = static_cast<int>(a->poll_sec * 1000.0);
    a->server.stop = &install_interrupt_handler();
    if (!is_loopback_address(a->server.host)) {
      std::fprintf(stderr, "pacer: warning: serving %s on %s to every machine that reaches it, without a password\n",
                   dashboard.location().c_str(), a->server.host.c_str());
    }
    a->server.on_listening = [&](const std::string& url) {
      std::printf("pacer serve: %s (store %s, read-only); Ctrl-C stops\n", url.c_str(), dashboard.location().c_str());
      std::fflush(stdout);
    };
    serve_dashboard(dashboard, a->server);
    std::printf("pacer serve: stopped\n");
    return 0;
  };
}

}  // namespace pacer::cli
