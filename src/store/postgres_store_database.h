#pragma once
// The PostgreSQL backend of the study store (libpqxx), for studies shared by many machines.
// Claims lock the claimed row with FOR UPDATE SKIP LOCKED; planning takes a transaction-scoped
// advisory lock. A lost connection (server restart, network) is re-opened with backoff and the
// interrupted transaction re-run, up to StudyStoreOptions::reconnect_timeout_sec. Credentials
// come from the URI, the PG* environment variables or ~/.pgpass (libpq's rules); messages name
// the store without its password. Torch-free.
//
//   auto db = pacer::open_postgres_store_database("postgresql://pacer@dbhost/studies", options);
#include <memory>
#include <string>

#include "store/store_database.h"

namespace pacer {

std::unique_ptr<StoreDatabase> open_postgres_store_database(const std::string& uri, const StudyStoreOptions& options);

// For tests of the retry paths: the next `count` commits of this process succeed on the server
// but report a lost connection, as when the connection breaks before the commit's reply arrives.
void lose_next_commit_replies_for_testing(int count);

}  // namespace pacer
