#pragma once
// What both probes take besides their own options: where they run, on which data and seed, the
// algorithm's point, the workload's model options and where progress goes. ThroughputProbeOptions
// and StabilityProbeOptions extend it, so a caller fills it once for either probe.
//
//   pacer::ProbeSetup setup;
//   setup.device = "cpu";
//   setup.hparams.set("learning_rate", 1e-3);
//   pacer::StabilityProbeOptions options;
//   static_cast<pacer::ProbeSetup&>(options) = setup;
#include <cstdint>
#include <string>

#include "core/hyperparameters.h"
#include "core/progress.h"
#include "catalog/workload_options.h"

namespace pacer {

struct ProbeSetup {
  std::string device = "auto", data_dir;  // data_dir empty: $PACER_DATA_DIR or the Debian package's
  uint64_t seed = 0;                      // of the model and the data order
  Hyperparameters hparams;                // the algorithm's point (defaults filled in)
  WorkloadOptions workload_options;
  Progress* progress = nullptr;           // none: no progress output
};

}  // namespace pacer
