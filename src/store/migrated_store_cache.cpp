#include "store/migrated_store_cache.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace pacer {
namespace {

namespace fs = std::filesystem;

// FNV-1a, 64 bits: a name that is the same in every build (std::hash need not be).
std::string path_digest(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

std::optional<fs::path> cache_folder() {
  if (const char* dir = std::getenv("PACER_CACHE_DIR"); dir && *dir) return fs::path(dir);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "pacer" / "migrated-stores";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "pacer" / "migrated-stores";
  return std::nullopt;
}

std::string identity(const struct stat& st) {
  return std::to_string(st.st_dev) + "-" + std::to_string(st.st_ino) + "-" + std::to_string(st.st_size) + "-" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::optional<std::string> migrated_copy_file(const std::string& store_path, int64_t schema) {
  const auto folder = cache_folder();
  std::error_code ec;
  const fs::path real = fs::canonical(store_path, ec);
  struct stat st {};
  if (!folder || ec || ::stat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string name = path_digest(real.string()) + "-" + identity(st);
  // Commits that sit in the log and not yet in the file change the store without its time.
  struct stat wal {};
  if (::stat((real.string() + "-wal").c_str(), &wal) == 0) name += "-wal-" + identity(wal);
  fs::create_directories(*folder, ec);
  if (ec || !fs::is_directory(*folder, ec)) return std::nullopt;
  return (*folder / (name + "-schema" + std::to_string(schema) + ".db")).string();
}

void forget_other_migrated_copies(const std::string& kept) {
  const fs::path file(kept);
  const std::string name = file.filename().string();
  const std::string store = name.substr(0, name.find('-') + 1);  // the real path's digest
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(file.parent_path(), ec)) {
    const std::string other = entry.path().filename().string();
    // The kept copy's own side files (a -journal, a .partial being written) stay.
    if (other.rfind(name, 0) != 0 && other.rfind(store, 0) == 0) fs::remove(entry.path(), ec);
  }
}

}  // namespace pacer
