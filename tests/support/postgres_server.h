#pragma once
// Test support: a PostgreSQL server of the test process's own. initdb + pg_ctl (Debian's
// `postgresql` package) in a temporary folder, listening only on a Unix socket in that folder,
// trust authentication, no fsync; started at first use, stopped when the process exits. As root
// (CI) the server runs as the unprivileged `postgres` user (initdb refuses root). Where the
// binaries are missing, available() is false and reason() says why: tests skip with it, unless
// PACER_REQUIRE_POSTGRES=1 (CI), where they fail.
//
//   auto& server = pacer::testing::PostgresServer::get();
//   if (!server.available()) GTEST_SKIP() << server.reason();
//   std::string uri = server.create_database();  // postgresql://...: a fresh, empty database
#include <pwd.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pacer::testing {

class PostgresServer {
 public:
  static PostgresServer& get() {
    static PostgresServer server;
    return server;
  }
  static bool required() {
    const char* v = std::getenv("PACER_REQUIRE_POSTGRES");
    return v && std::string(v) == "1";
  }

  bool available() const { return available_; }
  const std::string& reason() const { return reason_; }

  // A new empty database; its URI names the user, the socket folder and the port.
  std::string create_database() {
    const std::string name = "pacer_test_" + std::to_string(++databases_);
    sql("postgres", "CREATE DATABASE " + name);
    return uri(name);
  }
  std::string uri(const std::string& database) const {
    return "postgresql://pacer_test@/" + database + "?host=" + socket_dir_ + "&port=" + std::to_string(kPort);
  }
  // Runs SQL through psql; false when it failed.
  bool sql(const std::string& database, const std::string& statement) const {
    return run(bin_ + "/psql -q -X -v ON_ERROR_STOP=1 '" + uri(database) + "' -c \"" + statement + "\" >/dev/null");
  }
  // pg_ctl restart -m fast: every connection is dropped, the server comes back.
  bool restart() const { return as_server_user(bin_ + "/pg_ctl -D " + data_dir_ + " -w -m fast restart " + options()); }
  bool stop() const { return as_server_user(bin_ + "/pg_ctl -D " + data_dir_ + " -w -m fast stop >/dev/null"); }
  bool start() const { return as_server_user(bin_ + "/pg_ctl -D " + data_dir_ + " -w start " + options()); }

  ~PostgresServer() {
    if (!root_.empty()) {
      if (available_) as_server_user(bin_ + "/pg_ctl -D " + data_dir_ + " -w -m immediate stop >/dev/null 2>&1");
      std::error_code ec;
      std::filesystem::remove_all(root_, ec);
    }
  }

 private:
  static constexpr int kPort = 5432;  // only names the socket file; the folder is ours alone

  PostgresServer() {
    bin_ = find_bin_dir();
    if (bin_.empty()) {
      reason_ = "PostgreSQL server binaries not found (apt install postgresql; or set PACER_PG_BINDIR)";
      return;
    }
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / "pacer_pg_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) {
      reason_ = "cannot make a temporary folder";
      return;
    }
    root_ = tmpl;
    data_dir_ = root_ + "/data";
    socket_dir_ = root_;
    if (geteuid() == 0) {
      const passwd* pw = getpwnam("postgres");
      if (!pw) {
        reason_ = "running as root and no 'postgres' user to run the server as";
        return;
      }
      user_ = "postgres";
      if (chown(root_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        reason_ = "cannot hand " + root_ + " to the postgres user";
        return;
      }
    }
    if (!as_server_user(bin_ + "/initdb -D " + data_dir_ + " -U pacer_test --auth=trust --no-sync -E UTF8 " +
                        "--locale=C >" + root_ + "/initdb.log 2>&1")) {
      reason_ = "initdb failed (see " + root_ + "/initdb.log)";
      return;
    }
    if (!start()) {
      reason_ = "pg_ctl start failed (see " + root_ + "/server.log)";
      return;
    }
    available_ = true;
  }

  std::string options() const {
    return "-l " + root_ + "/server.log -o \"-k " + socket_dir_ + " -c listen_addresses='' -p " +
           std::to_string(kPort) + " -c fsync=off -c full_page_writes=off -c max_connections=100\" >/dev/null";
  }

  static std::string find_bin_dir() {
    if (const char* dir = std::getenv("PACER_PG_BINDIR")) return dir;
    std::string best;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      const std::string bin = entry.path().string() + "/bin";
      if (std::filesystem::exists(bin + "/initdb") && std::filesystem::exists(bin + "/pg_ctl") && bin > best) best = bin;
    }
    return best;
  }

  static bool run(const std::string& command) {
    const int status = std::system(command.c_str());
    return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  bool as_server_user(const std::string& command) const {
    if (user_.empty()) return run(command);
    // runuser keeps us out of a login shell; the command line goes through sh -c as written.
    std::string quoted;
    for (char c : command) quoted += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    return run("runuser -u " + user_ + " -- sh -c '" + quoted + "'");
  }

  std::string bin_, root_, data_dir_, socket_dir_, user_, reason_;
  bool available_ = false;
  int databases_ = 0;
};

}  // namespace pacer::testing
