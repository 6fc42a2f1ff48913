#include "store/postgres_store_database.h"

#include <pqxx/pqxx>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include "core/error.h"
#include "store/study_store.h"

namespace pacer {
namespace {

// Any fixed number: the advisory lock that serializes planning and migrations across processes.
constexpr long long kPlanningLock = 0x70616365;  // "pace"

std::atomic<int> lost_commit_replies{0};

// Without them a silently dropped network (no reset) blocks a call for the kernel's TCP timeout,
// many minutes, before the retry logic can act. Only where neither the URI nor PGCONNECT_TIMEOUT
// sets them (a URI parameter would override the environment).
std::string with_network_defaults(const std::string& uri) {
  std::string out = uri;
  for (const std::string setting : {"connect_timeout=10", "keepalives_idle=30", "keepalives_interval=10",
                                    "keepalives_count=3", "tcp_user_timeout=60000"}) {
    const std::string key = setting.substr(0, setting.find('=') + 1);
    if (out.find(key) != std::string::npos) continue;
    if (key == "connect_timeout=" && std::getenv("PGCONNECT_TIMEOUT")) continue;
    const char last = out.back();
    out += (out.find('?') == std::string::npos ? "?" : (last == '?' || last == '&') ? "" : "&") + setting;
  }
  return out;
}

std::string one_line(std::string text, const std::string& secret = "") {
  if (!secret.empty()) {
    for (size_t p = text.find(secret); p != std::string::npos; p = text.find(secret, p)) text.replace(p, secret.size(), "***");
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (auto& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return text;
}

// `?` placeholders -> $1, $2, ... (none of the store's SQL has a '?' inside a string literal,
// but skip quoted text anyway).
std::string numbered_placeholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  bool quoted = false;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) out += "$" + std::to_string(++n);
    else out += c;
  }
  return out;
}

std::string parameter_text(const SqlValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) {
    if (std::isnan(*d)) return "NaN";
    if (std::isinf(*d)) return *d > 0 ? "Infinity" : "-Infinity";
    return SqlRow{{*d}}.text(0);
  }
  return std::get<std::string>(value);
}

// Worth a new connection and another try: the connection broke, the server is restarting or
// shutting down, or the server gave up this transaction (serialization, deadlock).
bool is_transient(const std::exception& e) {
  if (dynamic_cast<const pqxx::broken_connection*>(&e) || dynamic_cast<const pqxx::in_doubt_error*>(&e) ||
      dynamic_cast<const pqxx::transaction_rollback*>(&e)) {
    return true;
  }
  if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
    const std::string& state = sql->sqlstate();
    return state.rfind("08", 0) == 0 || state == "57P01" || state == "57P02" || state == "57P03" ||
           state == "40001" || state == "40P01";
  }
  return false;
}

class PostgresStoreDatabase : public StoreDatabase {
 public:
  PostgresStoreDatabase(const std::string& uri, const StudyStoreOptions& options)
      : uri_(with_network_defaults(uri)),
        location_(printable_store_location(uri)),
        secret_(store_uri_password(uri)),
        reconnect_timeout_sec_(options.reconnect_timeout_sec) {
    connect_first(options.connect_retry_sec);
    if (!options.create && schema_version() == 0) {
      throw InputError(location_ + ": not a pacer study store (the database holds no Pacer schema); " +
                       "pacer tune creates one");
    }
  }

  const std::string& location() const override { return location_; }
  const SqlDialect& dialect() const override {
    static const SqlDialect postgres{"BIGSERIAL PRIMARY KEY",       "BIGINT",
                                     "DOUBLE PRECISION",            " FOR UPDATE SKIP LOCKED",
                                     " FOR UPDATE",                 "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"};
    return postgres;
  }

  SqlResult run(const std::string& sql, const std::vector<SqlValue>& params) override {
    if (current_) return execute(*current_, sql, params);
    SqlResult result;
    with_retry([&](bool) {
      pqxx::nontransaction tx(*connection_);
      result = execute(tx, sql, params);
    });
    return result;
  }

  void transaction(const std::function<void(bool)>& work) override {
    if (current_) throw Error("internal: nested study store transaction");
    with_retry([&](bool retrying) {
      pqxx::work tx(*connection_);
      current_ = &tx;
      struct Reset {
        pqxx::transaction_base*& slot;
        ~Reset() { slot = nullptr; }
      } reset{current_};
      work(retrying);
      tx.commit();
      for (int left = lost_commit_replies.load(); left > 0;) {
        if (lost_commit_replies.compare_exchange_weak(left, left - 1)) {
          throw pqxx::broken_connection("(test) the connection broke before the commit's reply arrived");
        }
      }
    });
  }

  void lock_for_planning() override { run("SELECT pg_advisory_xact_lock(" + std::to_string(kPlanningLock) + ")", {}); }

  double now() override { return run("SELECT extract(epoch FROM clock_timestamp())::float8", {}).rows.at(0).real(0); }

  int64_t schema_version() override {
    const auto exists = run("SELECT to_regclass('pacer_schema') IS NOT NULL", {});
    if (exists.rows.at(0).text(0) != "t") return 0;
    const auto version = run("SELECT max(version) FROM pacer_schema", {});
    return version.rows.empty() ? 0 : version.rows[0].int64(0);
  }

  void set_schema_version(int64_t version) override {
    run("CREATE TABLE IF NOT EXISTS pacer_schema(version BIGINT NOT NULL)", {});
    run("DELETE FROM pacer_schema", {});
    run("INSERT INTO pacer_schema(version) VALUES(?)", {version});
  }

  bool has_foreign_tables() override {
    return run("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()", {})
               .rows.at(0)
               .int64(0) > 0;
  }

 private:
  // The first connection: retried with backoff for up to `retry_sec` (a worker starting while the
  // server restarts), then an input error naming the store (a wrong host, port or password).
  void connect_first(double retry_sec) {
    const auto start = std::chrono::steady_clock::now();
    double backoff = 0.1;
    for (;;) {
      try {
        connect();
        return;
      } catch (const std::exception& e) {
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (waited + backoff > retry_sec) {
          throw InputError(location_ + ": cannot connect to the PostgreSQL study store: " + one_line(e.what(), secret_));
        }
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
      backoff = std::min(backoff * 2.0, 5.0);
    }
  }

  void connect() {
    connection_.reset();
    connection_ = std::make_unique<pqxx::connection>(uri_);
    // Notices ("relation exists, skipping") are not the user's business.
    pqxx::nontransaction tx(*connection_);
    tx.exec("SET client_min_messages TO warning");
  }

  static SqlResult execute(pqxx::transaction_base& tx, const std::string& sql, const std::vector<SqlValue>& params) {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> pointers(params.size(), nullptr);  // nullptr: SQL NULL
    for (size_t i = 0; i < params.size(); ++i) {
      if (std::holds_alternative<std::monostate>(params[i])) continue;
      texts[i] = parameter_text(params[i]);
      pointers[i] = texts[i].c_str();
    }
    const pqxx::result r = tx.exec_params(numbered_placeholders(sql), pqxx::prepare::make_dynamic_params(pointers));
    SqlResult out;
    out.affected = static_cast<int64_t>(r.affected_rows());
    out.rows.reserve(r.size());
    for (const auto& row : r) {
      SqlRow cells;
      cells.cells.reserve(row.size());
      for (const auto& field : row) {
        if (field.is_null()) cells.cells.emplace_back(std::monostate{});
        else cells.cells.emplace_back(std::string(field.c_str(), field.size()));
      }
      out.rows.push_back(std::move(cells));
    }
    return out;
  }

  // Runs `attempt` until it succeeds, reconnecting with exponential backoff (0.1 s doubling to
  // 5 s, with jitter so that many workers do not knock at once) after transient failures.
  void with_retry(const std::function<void(bool)>& attempt) {
    const auto start = std::chrono::steady_clock::now();
    double backoff = 0.1;
    bool retrying = false;
    for (;;) {
      std::string failure;
      try {
        if (!connection_) connect();
        attempt(retrying);
        return;
      } catch (const std::exception& e) {
        if (!is_transient(e)) {
          if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
            throw Error(location_ + ": " + one_line(sql->what(), secret_) + " (SQLSTATE " + sql->sqlstate() + ")");
          }
          throw;
        }
        failure = one_line(e.what(), secret_);
      }
      connection_.reset();  // broken or doubtful: the next try opens a new one
      retrying = true;
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited >= reconnect_timeout_sec_) {
        throw Error(location_ + ": lost the connection to the PostgreSQL study store and could not get it back within " +
                    std::to_string(static_cast<long>(reconnect_timeout_sec_)) + " s: " + failure);
      }
      if (!jitter_) jitter_ = std::make_unique<std::mt19937>(std::random_device{}());
      const double pause = std::min(backoff, reconnect_timeout_sec_ - waited) *
                           std::uniform_real_distribution<double>(0.75, 1.25)(*jitter_);
      std::this_thread::sleep_for(std::chrono::duration<double>(pause));
      backoff = std::min(backoff * 2.0, 5.0);
    }
  }

  std::string uri_, location_, secret_;
  double reconnect_timeout_sec_;
  std::unique_ptr<std::mt19937> jitter_;
  std::unique_ptr<pqxx::connection> connection_;
  pqxx::transaction_base* current_ = nullptr;
};

}  // namespace

std::unique_ptr<StoreDatabase> open_postgres_store_database(const std::string& uri, const StudyStoreOptions& options) {
  return std::make_unique<PostgresStoreDatabase>(uri, options);
}

void lose_next_commit_replies_for_testing(int count) { lost_commit_replies = count; }

}  // namespace pacer
