#include "core/output_folder.h"

#include <unistd.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

void check_writable_folder(const std::string& dir, const std::string& option, const std::string& shown) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw InputError(option + " " + shown + ": is a file, not a folder");
  try {
    create_directories(dir);
    const std::string probe = dir + "/.pacer_write_check" + std::to_string(::getpid());
    write_file_atomic(probe, "");
    fs::remove(probe, ec);
  } catch (const std::exception& e) {
    throw InputError(option + " " + shown + ": cannot write there: " + e.what());
  }
}

}  // namespace

void prepare_output_folder(const std::string& dir, const std::string& option,
                           const std::vector<std::string>& result_files, bool overwrite) {
  std::error_code ec;
  if (!overwrite) {
    for (const auto& name : result_files) {
      if (fs::exists(fs::path(dir) / name, ec)) {
        throw InputError(option + " " + dir + " already holds " + name + " (an earlier result); give --overwrite " +
                         "to replace it, or another " + option);
      }
    }
  }
  check_writable_folder(dir, option, dir);
}

void check_output_file(const std::string& path, const std::string& option) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(option + " " + path + " is a folder; give a file name");
  // Devices and pipes (/dev/stdout) are written through; only a file's folder needs checking.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) return;
  const fs::path parent = fs::path(path).parent_path();
  check_writable_folder(parent.empty() ? "." : parent.string(), option, path);
}

}  // namespace pacer
