#pragma once
// A trial's lease owner is "host/pid/nonce/table": a worker on the same host and process table can
// tell that an owner's process is gone (a killed worker) without waiting for its lease to expire.
// Torch-free.
#include <string>

namespace pacer {

std::string host_name_or_unknown();
// Which process table a pid belongs to: this boot of this machine and this pid namespace.
std::string process_table_id();
// An owner of this host and process table whose process no longer exists; owners elsewhere are
// judged by their lease only.
bool local_owner_is_dead(const std::string& owner);

}  // namespace pacer
