#include "store/owner_liveness.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace pacer {

std::string host_name_or_unknown() {
  char buffer[256] = {0};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown";
  return buffer;
}

// Which process table a pid belongs to: this boot of this machine (boot_id) and this pid
// namespace (its inode). Containers that share a host name, or one machine's containers with
// their own pid namespaces, differ here, so none takes another's live process for dead.
std::string process_table_id() {
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  struct stat ns {};
  const bool has_ns = stat("/proc/self/ns/pid", &ns) == 0;
  return boot.substr(0, 8) + "-" + (has_ns ? std::to_string(ns.st_ino) : std::string("0"));
}

// An owner "host/pid/nonce/table" of this host and process table whose process no longer exists
// (a killed worker): its trial need not wait for the lease to expire. Owners elsewhere are judged
// by their lease only. (Owners "host/pid/nonce" of older versions: by host name.)
bool local_owner_is_dead(const std::string& owner) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t slash = owner.find('/', start);
    parts.push_back(owner.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 3 || parts.size() > 4 || parts[0] != host_name_or_unknown()) return false;
  if (parts.size() == 4 && parts[3] != process_table_id()) return false;
  const long pid = std::strtol(parts[1].c_str(), nullptr, 10);
  if (pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace pacer
