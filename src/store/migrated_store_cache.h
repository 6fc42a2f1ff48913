#pragma once
// Where a read-only command keeps the migrated copy of a SQLite store of an older schema. Such a
// command never writes the store, so it reads a private copy that it migrates (store_schema.h);
// making that copy cost every read a copy and the migration (0.12-0.14 s of CPU for the first
// board's 12 MB store against 0.03 s for a current one). The copy is kept in the user's cache,
// named by the store's identity (its real path, device, inode, size and modification time, its
// write-ahead log's size and time) and the schema, so a later read of the unchanged store opens it
// at once, and any change to the store names another copy. The store itself is never touched.
//
//   if (auto file = pacer::migrated_copy_file("runs/old.db", 5)) { ... open *file, or make it ... }
//   pacer::forget_other_migrated_copies(*file);   // after making it: the same store's older copies
//
// The folder: $PACER_CACHE_DIR, else $XDG_CACHE_HOME/pacer/migrated-stores, else
// $HOME/.cache/pacer/migrated-stores; none (nullopt: the copy stays in memory) when none is set
// or the folder cannot be made.
#include <cstdint>
#include <optional>
#include <string>

namespace pacer {

std::optional<std::string> migrated_copy_file(const std::string& store_path, int64_t schema);

// Removes the files of the same store (same real path) other than `kept`: a changed store's copies.
void forget_other_migrated_copies(const std::string& kept);

}  // namespace pacer
