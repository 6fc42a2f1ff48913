#pragma once
// `pacer probe`: the playbook's batch-size probe. For each batch size (powers of two by
// default) a short run measures time per step, throughput (examples/s), the time the step waits
// for the input pipeline, the input pipeline alone, and peak memory (RSS on CPU, the CUDA
// allocator's peak on GPUs); the sweep stops at the first batch size that does not fit (out of
// memory, over --memory-limit, or larger than the training set). Off the study store: nothing
// here is a trial.
//
//   pacer::ThroughputProbeOptions options;
//   options.min_batch_size = 16;
//   options.max_batch_size = 2048;
//   pacer::ThroughputProbeReport report = pacer::run_throughput_probe("fmnist_cnn", "nadamw", options);
//   std::cout << report.verdict.explanation;
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "probe/probe_setup.h"
#include "probe/throughput_verdict.h"

namespace pacer {

struct ThroughputProbeOptions : ProbeSetup {
  std::vector<int64_t> batch_sizes;  // explicit list (ascending); empty: powers of two
  int64_t min_batch_size = 16, max_batch_size = 4096;
  int warmup_steps = 3;              // not measured: allocation and caches settle
  int measure_steps = 20;            // at most, within max_seconds per batch size
  double max_seconds = 10.0;         // per batch size (at least 3 measured steps)
  std::optional<int64_t> memory_limit_bytes;
  ClockKind clock = ClockKind::wall; // what step times are measured by
};

struct ThroughputProbeReport {
  std::string workload, algorithm, device;
  std::string clock = "wall";
  int threads = 0;
  int64_t train_examples = 0;
  std::optional<int64_t> baseline_memory_bytes;  // RSS with the data loaded, before any model
  std::vector<BatchSizeMeasurement> measurements;
  ThroughputVerdict verdict;
  std::string to_json() const;
};

// InputError for unknown names, bad options or an algorithm point it rejects.
ThroughputProbeReport run_throughput_probe(const std::string& workload, const std::string& algorithm,
                                           const ThroughputProbeOptions& options);

// The batch sizes a probe tries: min, 2 min, 4 min, ... <= max (InputError for min > max or <= 0).
std::vector<int64_t> power_of_two_batch_sizes(int64_t min_batch_size, int64_t max_batch_size);

}  // namespace pacer
