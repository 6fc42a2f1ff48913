#include "distributed/dist_environment.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/error.h"

namespace pacer {
namespace {

int parse_int(const char* name, const char* text, int lo, int hi) {
  const std::string s(text);
  size_t used = 0;
  long value = 0;
  try {
    value = std::stol(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || value < lo || value > hi) {
    throw InputError(std::string("environment variable ") + name + "='" + s + "' must be an integer in [" +
                     std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return static_cast<int>(value);
}

}  // namespace

DistEnvironment DistEnvironment::from_lookup(const std::function<const char*(const char*)>& getenv) {
  struct Convention {
    const char* source;
    const char* rank;
    const char* size;
    const char* local_rank;
    const char* local_size;
  };
  const Convention conventions[] = {
      {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
      {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
       "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
  };
  DistEnvironment env;
  for (const Convention& c : conventions) {
    const char* rank = getenv(c.rank);
    const char* size = getenv(c.size);
    if (!rank && !size) continue;
    if (!rank || !size) {
      throw InputError(std::string("environment: ") + (rank ? c.size : c.rank) + " is not set but " +
                       (rank ? c.rank : c.size) + " is");
    }
    env.source = c.source;
    env.world_size = parse_int(c.size, size, 1, 1 << 20);
    env.rank = parse_int(c.rank, rank, 0, env.world_size - 1);
    const char* local = getenv(c.local_rank);
    env.local_rank = local ? parse_int(c.local_rank, local, 0, env.world_size - 1) : env.rank;
    // Only a hint for sharing the CPUs: a value that does not fit this job (an sbatch allocation's
    // SLURM_NTASKS_PER_NODE under a smaller srun) is clamped, one that does not parse ignored.
    env.local_world_size = env.world_size;
    if (const char* local_size = getenv(c.local_size)) {
      try {
        env.local_world_size = std::clamp(parse_int(c.local_size, local_size, 1, 1 << 20), 1, env.world_size);
      } catch (const InputError&) {
      }
    }
    break;
  }
  if (const char* addr = getenv("MASTER_ADDR")) {
    if (!*addr) throw InputError("environment variable MASTER_ADDR is empty");
    env.master_addr = addr;
  }
  if (const char* port = getenv("MASTER_PORT")) env.master_port = parse_int("MASTER_PORT", port, 1, 65535);
  if (const char* file = getenv("PACER_RENDEZVOUS_FILE")) {
    if (!*file) throw InputError("environment variable PACER_RENDEZVOUS_FILE is empty");
    env.rendezvous_file = file;
  }
  return env;
}

DistEnvironment DistEnvironment::from_environment() {
  return from_lookup([](const char* name) { return std::getenv(name); });
}

}  // namespace pacer
