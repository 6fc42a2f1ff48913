#include "store/store_database.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "core/error.h"
#include "store/postgres_store_database.h"
#include "store/sqlite_store_database.h"

namespace pacer {
namespace {

std::string shortest(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  return std::string(buffer, end);
}

}  // namespace

bool SqlRow::is_null(size_t column) const { return std::holds_alternative<std::monostate>(cells.at(column)); }

int64_t SqlRow::int64(size_t column) const {
  const SqlValue& v = cells.at(column);
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    // SQLite keeps what it was given: a damaged or hand-edited store may hold 1e300 or 2.5 here.
    if (!(*d >= -9.2e18 && *d <= 9.2e18) || *d != std::trunc(*d)) {
      throw Error("study store: expected an integer, read " + shortest(*d));
    }
    return static_cast<int64_t>(*d);
  }
  if (const auto* s = std::get_if<std::string>(&v)) {
    int64_t out = 0;
    const auto [end, error] = std::from_chars(s->data(), s->data() + s->size(), out);
    if (error != std::errc() || end != s->data() + s->size()) {
      throw Error("study store: expected an integer, read '" + s->substr(0, 40) + "'");
    }
    return out;
  }
  return 0;
}

double SqlRow::real(size_t column) const {
  const SqlValue& v = cells.at(column);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v)) {
    // strtod also reads PostgreSQL's "Infinity", "-Infinity" and "NaN".
    char* end = nullptr;
    errno = 0;
    const double out = std::strtod(s->c_str(), &end);
    if (s->empty() || *end != '\0') throw Error("study store: expected a number, read '" + s->substr(0, 40) + "'");
    return out;
  }
  return 0.0;
}

std::string SqlRow::text(size_t column) const {
  const SqlValue& v = cells.at(column);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return shortest(*d);
  return std::string();
}

std::optional<int64_t> SqlRow::optional_int64(size_t column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

std::optional<double> SqlRow::optional_real(size_t column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

bool is_postgres_uri(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

namespace {

// [begin, end) of ":secret" in a URI's user:secret@host (the last '@' before the query: a secret
// may hold a '/'); empty when the URI names no password there.
std::pair<size_t, size_t> userinfo_password(const std::string& uri) {
  const size_t authority = uri.find("//") + 2;
  const size_t query = uri.find('?', authority);
  const size_t at = uri.rfind('@', query == std::string::npos ? uri.size() : query);
  if (at == std::string::npos || at < authority) return {0, 0};
  const size_t colon = uri.find(':', authority);
  if (colon == std::string::npos || colon > at) return {0, 0};
  return {colon, at};
}

}  // namespace

std::string store_uri_password(const std::string& location) {
  if (!is_postgres_uri(location)) return "";
  const auto [colon, at] = userinfo_password(location);
  if (at > colon) return location.substr(colon + 1, at - colon - 1);
  const size_t p = location.find("password=");
  if (p == std::string::npos) return "";
  const size_t end = location.find('&', p);
  return location.substr(p + 9, end == std::string::npos ? std::string::npos : end - p - 9);
}

std::string printable_store_location(const std::string& location) {
  if (!is_postgres_uri(location)) return location;
  std::string out = location;
  const auto [colon, at] = userinfo_password(out);  // user:secret@host -> user@host
  out.erase(colon, at - colon);
  // ...?password=secret&... -> the parameter dropped.
  for (size_t p = out.find("password="); p != std::string::npos; p = out.find("password=")) {
    const size_t start = (p > 0 && (out[p - 1] == '?' || out[p - 1] == '&')) ? p - 1 : p;
    const size_t end = out.find('&', p);
    if (end == std::string::npos) {
      out.erase(start);
    } else if (out[start] == '?') {
      out.erase(start + 1, end - start);  // keep '?', drop "password=...&"
    } else {
      out.erase(start, end - start);
    }
  }
  return out;
}

void make_store_folder(const std::string& location) {
  if (is_postgres_uri(location)) return;
  const auto parent = std::filesystem::path(location).parent_path();
  if (parent.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) throw InputError(parent.string() + ": cannot create the study store's folder: " + error.message());
}

bool is_sqlite_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;  // a FIFO would block the read
  std::ifstream in(path, std::ios::binary);
  char header[16] = {0};
  if (!in.read(header, sizeof(header))) return false;
  return std::string(header, 15) == "SQLite format 3";
}

void StoreDatabase::continue_on_private_copy() {
  throw InputError(location() + ": the study store has an older schema, which commands that only read do not " +
                   "upgrade; `pacer study upgrade " + location() + "` upgrades it in place");
}

std::unique_ptr<StoreDatabase> open_store_database(const std::string& location, const StudyStoreOptions& options) {
  if (is_postgres_uri(location)) return open_postgres_store_database(location, options);
  if (const size_t scheme = location.find("://"); scheme != std::string::npos) {
    // Only the scheme: the rest may hold a password in a form we do not parse.
    throw InputError("unknown study store URI scheme '" + location.substr(0, scheme) +
                     "' (a SQLite file path, or postgresql://[user@]host[:port]/database)");
  }
  return open_sqlite_store_database(location, options);
}

}  // namespace pacer
