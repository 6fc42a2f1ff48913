#include "core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/read_once_inputs.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

// The file a chain of symbolic links ends at (which may not exist yet: a dangling link names the
// file to create). Relative links are resolved from the folder of the link.
std::string follow_links(const std::string& path) {
  fs::path p = path;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p.string();
    if (hops == 40) throw InputError(path + ": too many levels of symbolic links");
    std::error_code ec;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) throw Error("cannot read the symbolic link " + p.string() + ": " + ec.message());
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
}

void write_all(int fd, const std::string& content, const std::string& name) {
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write " + name + ": " + std::strerror(errno));
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
}

// A character device or a pipe: written in place (a rename would replace the node itself).
void write_through(const std::string& path, const std::string& shown, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot write " + shown + ": " + std::strerror(errno));
  try {
    write_all(fd, content, shown);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0 && errno != EINTR) throw Error("cannot write " + shown + ": " + std::strerror(errno));
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string target = path;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {  // what the path is, through any links
    if (S_ISDIR(st.st_mode)) throw InputError(path + " is a folder; give a file name");
    // Devices, pipes and the /dev/stdout-like names (links into /proc/self/fd): written in place.
    const bool stream_name = path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || stream_name) return write_through(path, path, content);
    if (!S_ISREG(st.st_mode)) {
      throw InputError(path + " is not a regular file (a block device or a socket); Pacer writes files, "
                       "character devices and pipes only");
    }
    char* real = ::realpath(path.c_str(), nullptr);  // a link to a file: the file is replaced, the link stays
    if (real) {
      target = real;
      std::free(real);
    }
  } else {
    target = follow_links(path);  // a dangling link names the file to create
  }
  const std::string tmp = target + ".tmp" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
  try {
    write_all(fd, content, tmp);
    if (::fsync(fd) != 0) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  // close can report a delayed write error (NFS, a full disk): the file is then not trusted.
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot write " + tmp + ": " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot rename " + tmp + " to " + target + ": " + std::strerror(err));
  }
}

int remove_stale_temporary_files(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const auto at = name.rfind(".tmp");
    if (at == std::string::npos || at + 4 >= name.size()) continue;
    const std::string digits = name.substr(at + 4);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // still being written
    if (entry.is_regular_file(ec) && fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path + " is a folder, not a file");
  // A pipe read a second time is empty: the first read's bytes are kept for a second reader.
  const bool once = is_read_once(path);
  if (once) {
    const auto kept = read_once_inputs();
    if (auto it = kept.find(path); it != kept.end()) return it->second;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream out;
  out << in.rdbuf();
  if (once) keep_read_once_input(path, out.str());
  return out.str();
}

void create_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw Error("cannot create folder " + path + ": " + ec.message());
}

}  // namespace pacer
