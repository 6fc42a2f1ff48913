#pragma once
// A thin RAII layer over the SQLite C API: one connection, prepared statements with typed binds
// and reads, and IMMEDIATE transactions (writers take the lock up front, so two processes never
// deadlock upgrading a read lock; the busy timeout makes them wait instead of failing).
//
//   pacer::SqliteDatabase db("runs/tune.db");
//   db.exec("PRAGMA journal_mode=WAL");
//   pacer::SqliteStatement q = db.prepare("SELECT id FROM trials WHERE status = ?");
//   q.bind(1, "pending");
//   while (q.step()) std::int64_t id = q.column_int64(0);
#include <cstdint>
#include <optional>
#include <string>

#include "store/store_database.h"

struct sqlite3;
struct sqlite3_stmt;

namespace pacer {

class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::string sql);
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  SqliteStatement(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are 1-based, as in SQLite.
  void bind(int index, int64_t value);
  void bind(int index, int value) { bind(index, static_cast<int64_t>(value)); }
  void bind(int index, double value);
  void bind(int index, const std::string& value);
  void bind(int index, const char* value) { bind(index, std::string(value)); }
  void bind_null(int index);
  void bind(int index, const SqlValue& value);
  template <typename T>
  void bind(int index, const std::optional<T>& value) {
    if (value) bind(index, *value);
    else bind_null(index);
  }

  // true: a row is available; false: done. Throws Error on failure.
  bool step();
  void run();  // step to completion (for statements without rows)

  bool is_null(int column) const;
  int64_t column_int64(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<int64_t> column_optional_int64(int column) const;
  std::optional<double> column_optional_double(int column) const;
  int column_count() const;
  SqlValue column_value(int column) const;  // typed as SQLite stored it

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string sql_;
};

class SqliteDatabase {
 public:
  // Opens (creating when allowed) the file; waits up to busy_timeout_ms on locks held by others.
  // A file on a read-only file system (an archive on read-only media) is opened read-only and
  // immutable when it may not be created: a WAL database is otherwise unreadable there, since
  // SQLite cannot make its -shm file.
  // read_only: never writes the file (a read-only connection; it sees what writers commit).
  SqliteDatabase(const std::string& path, bool create, int busy_timeout_ms, bool read_only = false);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  void exec(const std::string& sql);
  // PRAGMA journal_mode=WAL, waiting up to the busy timeout: the exclusive lock this switch needs
  // is taken without SQLite's busy handler, so processes opening a new file at once (two workers
  // starting a study) would otherwise fail at once with "database is locked".
  void use_write_ahead_log();
  SqliteStatement prepare(const std::string& sql);
  int64_t last_insert_rowid() const;
  int changes() const;  // rows changed by the last statement
  const std::string& path() const { return path_; }
  bool read_only_media() const { return read_only_media_; }
  // Replaces the connection with a private in-memory copy of the database as it is now (SQLite's
  // backup API): what is done to the copy never reaches the file.
  void copy_into_memory();
  // Replaces the connection with a read-only one to `file`, a copy made by save_copy, when it opens
  // and holds user_version `schema`; false (the connection unchanged) otherwise.
  bool open_copy(const std::string& file, int64_t schema);
  // Writes the database as it is now to `file` (a temporary file renamed into place, so a reader
  // never sees half of it); false when it cannot.
  bool save_copy(const std::string& file);

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  bool read_only_media_ = false;
  int busy_timeout_ms_ = 0;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed without commit() (an exception).
class ImmediateTransaction {
 public:
  explicit ImmediateTransaction(SqliteDatabase& db);
  ~ImmediateTransaction();
  void commit();

 private:
  SqliteDatabase& db_;
  bool done_ = false;
};

}  // namespace pacer
