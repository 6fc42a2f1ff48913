#pragma once
// The SQLite backend of the study store: one file, WAL mode (readers run beside writers),
// writers serialized by BEGIN IMMEDIATE with a busy timeout. Checks on open that the file is a
// store (or may become one) and is not damaged. Torch-free.
//
//   auto db = pacer::open_sqlite_store_database("runs/tune.db", options);
#include <memory>
#include <string>

#include "store/store_database.h"

namespace pacer {

std::unique_ptr<StoreDatabase> open_sqlite_store_database(const std::string& path, const StudyStoreOptions& options);

}  // namespace pacer
