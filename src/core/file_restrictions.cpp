#include "core/file_restrictions.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/error.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

// The kernel's ABI, spelled out: the distribution's header may be older than the kernel (this
// one's stops at ABI 2), and the values are fixed by the kernel's stable interface.
constexpr uint64_t kExecute = 1ULL << 0, kWriteFile = 1ULL << 1, kReadFile = 1ULL << 2, kReadDir = 1ULL << 3;
constexpr uint64_t kRefer = 1ULL << 13, kTruncate = 1ULL << 14, kIoctlDev = 1ULL << 15;
constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0, kScopeSignal = 1ULL << 1;
// What may be granted on a file (the rest concern folders).
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
constexpr uint64_t kReadRights = kExecute | kReadFile | kReadDir;

struct RulesetAttr {  // struct landlock_ruleset_attr as of ABI 6; zeros past what a kernel knows
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

uint64_t handled_fs_rights(int abi) {
  uint64_t rights = (1ULL << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

class Ruleset {
 public:
  Ruleset(int abi, uint64_t handled) : handled_(handled) {
    RulesetAttr attr;
    attr.handled_access_fs = handled;
    if (abi >= 6) attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    fd_ = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
    if (fd_ < 0) throw Error(std::string("file restrictions: landlock_create_ruleset: ") + std::strerror(errno));
  }
  ~Ruleset() { ::close(fd_); }
  Ruleset(const Ruleset&) = delete;
  Ruleset& operator=(const Ruleset&) = delete;

  // Grants `access` beneath `path` (on a file: its file rights). A path that is gone, or a
  // symbolic link (its target is granted, or not, where it lies), gets no rule.
  void grant(const fs::path& path, uint64_t access) {
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
      ::close(fd);
      return;
    }
    if (!S_ISDIR(st.st_mode)) access &= kFileRights;
    struct landlock_path_beneath_attr beneath {};
    beneath.allowed_access = access & handled_;
    beneath.parent_fd = fd;
    const long rc = ::syscall(SYS_landlock_add_rule, fd_, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw Error("file restrictions: cannot grant access to " + path.string() + ": " + std::strerror(err));
  }

  void restrict_self() {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || ::syscall(SYS_landlock_restrict_self, fd_, 0) != 0) {
      throw Error(std::string("file restrictions: landlock_restrict_self: ") + std::strerror(errno));
    }
  }

 private:
  int fd_ = -1;
  uint64_t handled_ = 0;
};

bool within(const fs::path& inner, const fs::path& outer) {
  const std::string i = inner.string(), o = outer.string();
  if (i == o) return true;
  const std::string prefix = o.back() == '/' ? o : o + "/";
  return i.compare(0, prefix.size(), prefix) == 0;
}

// Read access to everything beneath `folder` but the unreadable paths: Landlock only grants, so
// the folders on the way to an unreadable path are split into their entries, and every entry that
// holds no unreadable path is granted whole.
void grant_read_except(Ruleset& ruleset, const fs::path& folder, const std::vector<fs::path>& unreadable) {
  bool holds_one = false;
  for (const auto& u : unreadable) {
    if (u == folder) return;
    holds_one = holds_one || within(u, folder);
  }
  if (!holds_one) {
    ruleset.grant(folder, kReadRights);
    return;
  }
  std::error_code ec;
  for (fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    if (ec || fs::is_symlink(status)) continue;
    if (fs::is_directory(status)) {
      grant_read_except(ruleset, it->path(), unreadable);
    } else {
      bool denied = false;
      for (const auto& u : unreadable) denied = denied || u == it->path();
      if (!denied) ruleset.grant(it->path(), kReadRights);
    }
  }
}

// An existing path with its symbolic links resolved (what Landlock sees), or empty.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) return {};
  const fs::path p = fs::canonical(path, ec);
  return ec ? fs::path() : p;
}

}  // namespace

int landlock_abi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

int process_thread_count() {
  std::error_code ec;
  int count = 0;
  for (fs::directory_iterator it("/proc/self/task", ec), end; !ec && it != end; it.increment(ec)) ++count;
  return count;
}

std::vector<std::string> process_thread_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it("/proc/self/task", ec), end; !ec && it != end; it.increment(ec)) {
    std::string name;
    std::ifstream(it->path() / "comm") >> name;
    names.push_back(name);
  }
  return names;
}

FileRestrictionsReport restrict_files(const FileRestrictions& restrictions) {
  FileRestrictionsReport report;
  const int abi = landlock_abi();
  if (abi < 1) {
    report.what = std::string("this kernel has no Landlock (") + std::strerror(errno) +
                  "): the trial's process can read the held-out data and write any file this user can";
    return report;
  }
  report.abi = abi;
  Ruleset ruleset(report.abi, handled_fs_rights(report.abi));
  std::vector<fs::path> unreadable;
  for (const auto& path : restrictions.unreadable)
    if (const fs::path p = resolved(path); !p.empty()) unreadable.push_back(p);
  grant_read_except(ruleset, "/", unreadable);
  int writable = 0;
  for (const auto& path : restrictions.writable) {
    if (const fs::path p = resolved(path); !p.empty()) {
      ruleset.grant(p, handled_fs_rights(report.abi));
      ++writable;
    }
  }
  ruleset.restrict_self();
  report.enforced = true;
  report.what = "Landlock ABI " + std::to_string(report.abi) + ": " + std::to_string(unreadable.size()) +
                " unreadable path(s), " + std::to_string(writable) + " writable" +
                (report.abi >= 6 ? "; no signals to processes outside it" : "");
  return report;
}

std::string restrict_this_process(const FileRestrictions& restrictions) {
  const std::vector<std::string> threads = process_thread_names();
  const FileRestrictionsReport report = restrict_files(restrictions);
  if (!report.enforced) std::fprintf(stderr, "warning: %s\n", report.what.c_str());
  if (report.enforced && threads.size() > 1) {
    std::string names;
    for (size_t i = 1; i < threads.size(); ++i) names += (i > 1 ? ", " : "") + threads[i];
    std::fprintf(stderr, "warning: file restrictions: %zu thread(s) of this process ran before them and are not restricted (%s)\n",
                 threads.size() - 1, names.c_str());
  }
  return report.what;
}

}  // namespace pacer
