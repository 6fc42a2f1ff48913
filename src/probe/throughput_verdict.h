#pragma once
// What a batch-size probe's measurements say (the playbook's "choosing the batch size"): the
// batch size where throughput stops growing, and why. Torch-free, so the rule is tested on
// measurements with a known answer.
//
// The rule. Throughput = examples per second of the full training step (data wait included).
// The recommended batch size is the smallest measured one whose throughput is within
// `saturation` (default 90%) of the best measured throughput: beyond it, doubling the batch
// size buys at most ~1/saturation more examples per second, so larger batches only cost
// retuning. The bottleneck at that batch size:
//   data     the step waits for data >= 25% of its time, or the input pipeline alone delivers
//            < 1.25x the training throughput: the input pipeline limits throughput;
//   memory   throughput was still growing (>= 10% per doubling) at the largest batch size that
//            fits, and the next one did not fit: memory limits the batch size;
//   untested throughput was still growing at the largest batch size tried (raise the maximum);
//   compute  otherwise: time per step grows in proportion to the batch, the device is saturated.
//
//   pacer::ThroughputVerdict v = pacer::throughput_verdict(measurements);
//   std::cout << *v.recommended_batch_size << " (" << v.bottleneck << "): " << v.explanation;
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pacer {

struct BatchSizeMeasurement {
  int64_t batch_size = 0;
  bool fits = true;            // false: out of memory, over the memory limit, or no data for it
  std::string failure;         // why it does not fit
  int64_t steps = 0;           // measured steps (after the warm-up steps)
  double step_seconds_median = 0.0, step_seconds_min = 0.0, step_seconds_max = 0.0;
  double examples_per_second = 0.0;           // batch_size / median step time
  double data_wait_fraction = 0.0;            // of the step time, waiting for the next batch
  double pipeline_examples_per_second = 0.0;  // the input pipeline alone
  std::optional<int64_t> peak_memory_bytes;   // peak RSS (CPU) or allocator peak (CUDA)
  std::string memory_measure;                 // "peak RSS" or "CUDA allocator peak"
};

struct ThroughputVerdict {
  std::optional<int64_t> recommended_batch_size;  // none: no batch size fits
  std::string bottleneck;   // compute, data, memory, untested; empty without a recommendation
  std::string explanation;  // one or two sentences with the evidence
  // Throughput of each fitting measurement over the previous fitting one (NaN for the first).
  std::vector<double> doubling_gain;
  // Measurements too noisy to trust (step times spread over more than 3x, or a doubling that
  // gains more than 2.5x, which no steady machine gives): the verdict is then flagged, and
  // `warning` (also appended to the explanation) says which and what to do.
  std::vector<int64_t> unreliable_batch_sizes;
  std::string warning;
};

ThroughputVerdict throughput_verdict(const std::vector<BatchSizeMeasurement>& measurements, double saturation = 0.9);

}  // namespace pacer
