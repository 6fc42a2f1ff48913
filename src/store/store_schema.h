#pragma once
// The study store's schema: its versioned migrations, written once for both backends, and how a
// store is brought to the latest version. Torch-free.
#include <cstdint>

#include "store/store_database.h"

namespace pacer {

// The latest schema version (the number of migrations).
int64_t latest_store_schema();

// Brings `db` to the latest version; returns the version it held. Read-only: nothing is written;
// an older store is read through a private copy, migrated there. InputError for a newer schema,
// a database with other tables, or (read-only) one without Pacer's schema.
int64_t migrate_store(StoreDatabase& db, bool read_only);

}  // namespace pacer
