#include "store/sqlite_store_database.h"

#include <unistd.h>

#include <chrono>
#include <optional>

#include "core/error.h"
#include "store/migrated_store_cache.h"
#include "store/sqlite_database.h"
#include "store/store_schema.h"
#include "store/study_store.h"

namespace pacer {
namespace {

class SqliteStoreDatabase : public StoreDatabase {
 public:
  SqliteStoreDatabase(const std::string& path, const StudyStoreOptions& options)
      : db_(path, options.create, options.busy_timeout_ms, options.read_only) {
    check_store_file(options.create);
    if (db_.read_only_media() || options.read_only) return;  // an archive, or a command that only reads
    // WAL lets readers (study show, score) run while workers write; NORMAL sync is durable across
    // process crashes, which is the failure we guard against.
    db_.use_write_ahead_log();
    db_.exec("PRAGMA synchronous=NORMAL");
    db_.exec("PRAGMA foreign_keys=ON");
  }

  const std::string& location() const override { return db_.path(); }
  const SqlDialect& dialect() const override {
    static const SqlDialect sqlite{"INTEGER PRIMARY KEY", "INTEGER", "REAL", "", "", ""};
    return sqlite;
  }

  SqlResult run(const std::string& sql, const std::vector<SqlValue>& params) override {
    auto q = db_.prepare(sql);
    for (size_t i = 0; i < params.size(); ++i) q.bind(static_cast<int>(i + 1), params[i]);
    SqlResult result;
    while (q.step()) {
      SqlRow row;
      for (int c = 0; c < q.column_count(); ++c) row.cells.push_back(q.column_value(c));
      result.rows.push_back(std::move(row));
    }
    result.affected = db_.changes();
    return result;
  }

  void transaction(const std::function<void(bool)>& work) override {
    ImmediateTransaction tx(db_);
    work(false);
    tx.commit();
  }
  void lock_for_planning() override {}
  double now() override {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
  }

  int64_t schema_version() override { return run("PRAGMA user_version", {}).rows.at(0).int64(0); }
  void set_schema_version(int64_t version) override { db_.exec("PRAGMA user_version = " + std::to_string(version)); }
  bool has_foreign_tables() override { return run("SELECT count(*) FROM sqlite_master", {}).rows.at(0).int64(0) > 0; }
  void continue_on_private_copy() override {
    kept_copy_ = migrated_copy_file(db_.path(), latest_store_schema());
    if (kept_copy_ && db_.open_copy(*kept_copy_, latest_store_schema())) {
      kept_copy_.reset();  // read from it; nothing to keep
      return;
    }
    db_.copy_into_memory();
    db_.exec("PRAGMA foreign_keys=ON");  // as the migration runs on a store opened for writing
  }
  void private_copy_migrated() override {
    if (kept_copy_ && db_.save_copy(*kept_copy_)) forget_other_migrated_copies(*kept_copy_);
  }

 private:
  // Before anything is written: a command that only reads must not turn an empty or foreign file
  // into a store, and nothing may read or append to a damaged one.
  void check_store_file(bool create) {
    int64_t version = 0;
    try {
      version = schema_version();  // a file that is not SQLite fails here
    } catch (const InputError& e) {
      throw InputError(db_.path() + ": not a pacer study store (" + e.what() + ")");
    }
    if (version == 0 && !create) {
      throw InputError(db_.path() + ": not a pacer study store (an empty file or another SQLite database); " +
                       "pacer tune creates one");
    }
    if (version == 0) return;
    std::string verdict = run("PRAGMA quick_check(1)", {}).rows.at(0).text(0);
    if (verdict != "ok") {
      for (auto& c : verdict)
        if (c == '\n') c = ' ';  // one line
      throw InputError(db_.path() + ": the study store is damaged (SQLite quick_check: " + verdict.substr(0, 200) +
                       "); restore it from a copy");
    }
  }

  SqliteDatabase db_;
  std::optional<std::string> kept_copy_;  // where the migrated private copy is to be kept
};

}  // namespace

std::unique_ptr<StoreDatabase> open_sqlite_store_database(const std::string& path, const StudyStoreOptions& options) {
  if (!options.create && access(path.c_str(), F_OK) != 0) throw InputError(path + ": no such study store");
  return std::make_unique<SqliteStoreDatabase>(path, options);
}

}  // namespace pacer
