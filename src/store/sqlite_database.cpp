#include "store/sqlite_database.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "core/error.h"

namespace pacer {
namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  const int code = db ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
  const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
  std::string text = what + ": " + message + " (SQLite code " + std::to_string(code) + ")";
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;  // the store, named
  if (file && *file && what.find(file) == std::string::npos) text = std::string(file) + ": " + text;
  // The causes a user can act on, said in words. SQLITE_IOERR_SHMSIZE (4874) is what a full disk
  // gives a WAL database.
  const int primary = code & 0xff;
  if (primary == SQLITE_READONLY) text += ": the study store cannot be written (read-only file, folder or media)";
  if (primary == SQLITE_FULL || code == SQLITE_IOERR_WRITE || code == SQLITE_IOERR_FSYNC || code == SQLITE_IOERR_SHMSIZE) {
    text += ": the disk is full or failing; free space and run the command again";
  }
  // A file that is not a database, or a damaged one, is the user's input.
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT || primary == SQLITE_CANTOPEN) throw InputError(text);
  throw Error(text);
}

}  // namespace

SqliteStatement::SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::string sql)
    : db_(db), stmt_(stmt), sql_(std::move(sql)) {}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), sql_(std::move(other.sql_)) {}

SqliteStatement::~SqliteStatement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

void SqliteStatement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(db_, "binding " + sql_);
}
void SqliteStatement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail(db_, "binding " + sql_);
}
void SqliteStatement::bind(int index, const std::string& value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK) {
    fail(db_, "binding " + sql_);
  }
}
void SqliteStatement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(db_, "binding " + sql_);
}

void SqliteStatement::bind(int index, const SqlValue& value) {
  if (std::holds_alternative<std::monostate>(value)) bind_null(index);
  else if (const auto* i = std::get_if<int64_t>(&value)) bind(index, *i);
  else if (const auto* d = std::get_if<double>(&value)) bind(index, *d);
  else bind(index, std::get<std::string>(value));
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "running " + sql_);
}

void SqliteStatement::run() {
  while (step()) {
  }
}

bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
int64_t SqliteStatement::column_int64(int column) const { return sqlite3_column_int64(stmt_, column); }
double SqliteStatement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }
std::string SqliteStatement::column_text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column)) : std::string();
}
std::optional<int64_t> SqliteStatement::column_optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_int64(column);
}
std::optional<double> SqliteStatement::column_optional_double(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_double(column);
}

int SqliteStatement::column_count() const { return sqlite3_column_count(stmt_); }
SqlValue SqliteStatement::column_value(int column) const {
  switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_NULL: return std::monostate{};
    case SQLITE_INTEGER: return column_int64(column);
    case SQLITE_FLOAT: return column_double(column);
    default: return column_text(column);
  }
}

namespace {

bool on_read_only_file_system(const std::string& path) {
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  if (dir.empty()) dir = ".";
  struct statvfs fs {};
  return ::statvfs(dir.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0;
}

// SQLite's URI filename: the characters URIs reserve are escaped.
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof(escaped), "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri;
}

// Only a regular file (or nothing yet, to create) is a store: SQLite's open of a FIFO blocks for
// a writer that never comes (it hung `pacer serve` for good), and a folder gave "disk I/O error".
void require_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;  // missing: create or say so later
  const char* what = S_ISDIR(st.st_mode)    ? "a folder"
                     : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "not a regular file";
  throw InputError(path + ": " + what + ", not a study store (a SQLite file)");
}

}  // namespace

SqliteDatabase::SqliteDatabase(const std::string& path, bool create, int busy_timeout_ms, bool read_only)
    : path_(path), busy_timeout_ms_(busy_timeout_ms) {
  require_regular_file(path);
  read_only_media_ = !create && on_read_only_file_system(path);
  const int flags = read_only_media_ ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
                    : read_only      ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
                                     : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const std::string name = read_only_media_ ? file_uri(path) + "?immutable=1" : path;
  if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(path + ": cannot open the study store: " + message);
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  sqlite3_extended_result_codes(db_, 1);
}

void SqliteDatabase::copy_into_memory() {
  sqlite3* memory = nullptr;
  if (sqlite3_open_v2(":memory:", &memory, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(memory);
    throw Error(path_ + ": cannot open an in-memory database");
  }
  sqlite3_backup* backup = sqlite3_backup_init(memory, "main", db_, "main");
  const int rc = backup ? sqlite3_backup_step(backup, -1) : SQLITE_ERROR;  // -1: every page at once
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    const std::string message = sqlite3_errmsg(backup ? db_ : memory);
    sqlite3_close(memory);
    throw InputError(path_ + ": cannot copy the study store into memory: " + message);
  }
  sqlite3_close(db_);
  db_ = memory;
  sqlite3_extended_result_codes(db_, 1);
}

bool SqliteDatabase::open_copy(const std::string& file, int64_t schema) {
  sqlite3* copy = nullptr;
  if (sqlite3_open_v2(file.c_str(), &copy, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    sqlite3_close(copy);
    return false;
  }
  sqlite3_stmt* stmt = nullptr;
  const bool current = sqlite3_prepare_v2(copy, "PRAGMA user_version", -1, &stmt, nullptr) == SQLITE_OK &&
                       sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_int64(stmt, 0) == schema;
  sqlite3_finalize(stmt);
  if (!current) {
    sqlite3_close(copy);
    return false;
  }
  sqlite3_close(db_);
  db_ = copy;
  sqlite3_busy_timeout(db_, busy_timeout_ms_);
  sqlite3_extended_result_codes(db_, 1);
  return true;
}

bool SqliteDatabase::save_copy(const std::string& file) {
  const std::string partial = file + ".partial-" + std::to_string(::getpid());
  sqlite3* out = nullptr;
  bool saved = sqlite3_open_v2(partial.c_str(), &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                               nullptr) == SQLITE_OK;
  if (saved) {
    sqlite3_backup* backup = sqlite3_backup_init(out, "main", db_, "main");
    saved = backup && sqlite3_backup_step(backup, -1) == SQLITE_DONE;
    sqlite3_backup_finish(backup);
    // The pages carry the store's WAL mode; a copy only ever read needs no -wal and -shm files.
    saved = saved && sqlite3_exec(out, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  sqlite3_close(out);
  saved = saved && std::rename(partial.c_str(), file.c_str()) == 0;
  if (!saved) std::remove(partial.c_str());
  return saved;
}

SqliteDatabase::~SqliteDatabase() {
  if (db_) sqlite3_close(db_);
}

void SqliteDatabase::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    sqlite3_free(message);
    fail(db_, path_ + ": " + sql.substr(0, 60));
  }
}

void SqliteDatabase::use_write_ahead_log() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms_);
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() + pause > deadline) {
      fail(db_, path_ + ": PRAGMA journal_mode=WAL");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

SqliteStatement SqliteDatabase::prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
    fail(db_, path_ + ": preparing " + sql.substr(0, 60));
  }
  return SqliteStatement(db_, stmt, sql.substr(0, 60));
}

int64_t SqliteDatabase::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int SqliteDatabase::changes() const { return sqlite3_changes(db_); }

ImmediateTransaction::ImmediateTransaction(SqliteDatabase& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

ImmediateTransaction::~ImmediateTransaction() {
  if (done_) return;
  try {
    db_.exec("ROLLBACK");
  } catch (...) {
    // The connection may already have rolled back (e.g. after SQLITE_FULL); nothing more to do.
  }
}

void ImmediateTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace pacer
