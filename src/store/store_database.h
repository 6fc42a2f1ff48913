#pragma once
// The database under a study store: the small interface the store's logic is written against, so
// that SQLite (one file, one machine) and PostgreSQL (a server, many machines) give the same
// semantics from one implementation of that logic. A backend runs SQL with `?` placeholders on
// one connection, runs a piece of work as one transaction (PostgreSQL: retried after a lost
// connection), and knows its dialect: column types and the row locks a claim needs. Torch-free.
//
//   std::unique_ptr<pacer::StoreDatabase> db = pacer::open_store_database("postgresql://h/db", {});
//   db->transaction([&](bool retrying) {
//     pacer::SqlResult r = db->run("SELECT id FROM trials WHERE status = ?", {std::string("pending")});
//     for (const auto& row : r.rows) std::int64_t id = row.int64(0);
//   });
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pacer {

struct StudyStoreOptions;

// One parameter or cell. PostgreSQL cells arrive as text; the typed reads convert them.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;

template <typename T>
SqlValue sql_value(const std::optional<T>& value) {
  if (!value) return std::monostate{};
  return SqlValue(*value);
}

struct SqlRow {
  std::vector<SqlValue> cells;
  bool is_null(size_t column) const;
  int64_t int64(size_t column) const;  // NULL reads as 0, like SQLite
  double real(size_t column) const;
  std::string text(size_t column) const;  // NULL reads as ""
  std::optional<int64_t> optional_int64(size_t column) const;
  std::optional<double> optional_real(size_t column) const;
};

struct SqlResult {
  std::vector<SqlRow> rows;
  int64_t affected = 0;  // rows inserted, updated or deleted
};

// Where the SQL of the two backends differs. The schema is written once with these as
// placeholders ({id}, {int}, {real}); the queries with the lock clauses appended.
struct SqlDialect {
  std::string id_column;      // "INTEGER PRIMARY KEY" / "BIGSERIAL PRIMARY KEY"
  std::string int_type;       // 64-bit integers (seeds, steps)
  std::string real_type;      // doubles (PostgreSQL's REAL is only 4 bytes)
  std::string skip_locked;    // after a SELECT that claims a row: " FOR UPDATE SKIP LOCKED" or ""
  std::string lock_row;       // after a SELECT whose rows the transaction will change: " FOR UPDATE" or ""
  std::string snapshot_reads; // first in a transaction whose reads must see one moment ("": already so)
};

class StoreDatabase {
 public:
  virtual ~StoreDatabase() = default;

  // For messages: the file path, or the URI without its password.
  virtual const std::string& location() const = 0;
  virtual const SqlDialect& dialect() const = 0;

  // One statement with `?` placeholders. Inside transaction(), or alone in autocommit.
  virtual SqlResult run(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;

  // Runs `work` as one write transaction: all of it or nothing. SQLite takes the write lock up
  // front (BEGIN IMMEDIATE). PostgreSQL retries the whole transaction on a new connection when
  // the old one is lost (server restart, network), with backoff, up to the options' reconnect
  // timeout; `retrying` tells `work` that an earlier try may have committed before the loss.
  virtual void transaction(const std::function<void(bool retrying)>& work) = 0;
  // Serializes planning (create/grow/delete/copy studies) against other processes; called first
  // inside transaction(). SQLite: a no-op (IMMEDIATE already serializes writers).
  virtual void lock_for_planning() = 0;

  // Seconds since the epoch on the clock every lease is judged by: this machine's for SQLite (one
  // machine), the server's for PostgreSQL (workers on many hosts need no synchronized clocks).
  virtual double now() = 0;

  // The schema version this database holds (0: no Pacer schema); the setter runs inside the
  // migration's transaction.
  virtual int64_t schema_version() = 0;
  virtual void set_schema_version(int64_t version) = 0;
  // Tables that are not Pacer's in an unversioned database (then it is someone else's).
  virtual bool has_foreign_tables() = 0;
  // A store opened read-only whose schema is older than this build's: continue on a private copy
  // that the migration may upgrade without touching the store. SQLite copies it into memory;
  // others refuse (InputError naming the upgrade command).
  virtual void continue_on_private_copy();
  // Called once the private copy is migrated: SQLite keeps it for the next read of the unchanged
  // store (store/migrated_store_cache.h). A copy that continue_on_private_copy found kept already
  // holds the latest schema, and the migration does not run.
  virtual void private_copy_migrated() {}
};

// "postgresql://..." or "postgres://..." (libpq's URI forms; "postgresql://" alone takes everything
// from the standard PG* environment variables); anything else is a SQLite file path.
bool is_postgres_uri(const std::string& location);
// The location as it may be printed: a URI's password (user:secret@ or password=...) removed.
std::string printable_store_location(const std::string& location);
// The password a postgresql:// URI names (user:secret@ or password=), "" if none: what messages
// from the server's client library must not repeat.
std::string store_uri_password(const std::string& location);

// A file that starts with SQLite's header (a study store or another SQLite database).
bool is_sqlite_file(const std::string& path);

// Before a store is created: the parent folder of a SQLite file (nothing for a URI).
void make_store_folder(const std::string& location);

// Opens the backend that the location names. SQLite: the file (created when options.create).
std::unique_ptr<StoreDatabase> open_store_database(const std::string& location, const StudyStoreOptions& options);

}  // namespace pacer
