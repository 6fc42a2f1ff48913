#pragma once
// Where this process sits in a multi-process job, read from the launcher's environment:
// torchrun's RANK / WORLD_SIZE / LOCAL_RANK / MASTER_ADDR / MASTER_PORT (also what `pacer launch`
// sets), else Open MPI's OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK}, else Slurm's SLURM_PROCID /
// SLURM_NTASKS / SLURM_LOCALID. The rendezvous address always comes from MASTER_ADDR and
// MASTER_PORT (defaults 127.0.0.1 and 29500).
//
//   pacer::DistEnvironment env = pacer::DistEnvironment::from_environment();
//   if (env.world_size > 1) { /* start a c10d process group */ }
#include <functional>
#include <string>

namespace pacer {

struct DistEnvironment {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  // Processes of this job on this machine (LOCAL_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_SIZE,
  // SLURM_NTASKS_PER_NODE); world_size when the launcher does not say, so that the CPU threads
  // shared out by it never oversubscribe the machine.
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  // PACER_RENDEZVOUS_FILE (set by a one-node `pacer launch`): the ranks meet through this file
  // (c10d's FileStore) instead of a TCP store, which would listen on every interface.
  std::string rendezvous_file;
  std::string source = "none";  // "torchrun", "openmpi", "slurm" or "none"

  // InputError naming the variable for malformed or inconsistent values.
  static DistEnvironment from_environment();
  // The same, reading variables through `getenv` (tests).
  static DistEnvironment from_lookup(const std::function<const char*(const char*)>& getenv);
};

}  // namespace pacer
