// The PostgreSQL backend in a build without libpqxx (PACER_WITH_POSTGRES=OFF, a device build):
// a postgresql:// store is an input error naming the option, and SQLite stores work as always.
#include "core/error.h"
#include "store/postgres_store_database.h"

namespace pacer {

std::unique_ptr<StoreDatabase> open_postgres_store_database(const std::string& uri, const StudyStoreOptions&) {
  (void)uri;  // never echoed: it may hold a password
  throw InputError("this pacer was built without PostgreSQL study stores (PACER_WITH_POSTGRES=OFF): "
                   "use a SQLite file, or build with libpqxx");
}

void lose_next_commit_replies_for_testing(int) {}

}  // namespace pacer
