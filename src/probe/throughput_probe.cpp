#include "probe/throughput_probe.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "algorithms/registry.h"
#include "algorithms/training_algorithm.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/seed.h"
#include "data/batch_stream.h"
#include "probe/memory_meter.h"
#include "runtime/torch_runtime.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer {
namespace {


double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Short training at one batch size; the measurement or why it does not fit.
BatchSizeMeasurement measure_batch_size(Workload& workload, const std::string& algorithm_name, int64_t batch_size,
                                        const c10::Device& device, const ThroughputProbeOptions& o) {
  const std::unique_ptr<Clock> clock = make_clock(o.clock);
  auto now_seconds = [&] { return clock->now(); };
  BatchSizeMeasurement m;
  m.batch_size = batch_size;
  const int64_t train_size = workload.dataset(EvalSplit::train).size();
  if (batch_size > train_size) {
    m.fits = false;
    m.failure = "larger than the training set (" + std::to_string(train_size) + " examples)";
    return m;
  }
  reset_peak_rss();
  reset_peak_device_memory(device);
  std::vector<double> step_times;
  double wait_total = 0.0, step_total = 0.0;
  try {
    auto network = workload.init_model(derive_seed(o.seed, SeedStream::model_init), device);
    auto algorithm = create_algorithm(algorithm_name);
    algorithm->init_optimizer_state(workload, *network, &o.hparams, derive_seed(o.seed, SeedStream::optimizer));
    BatchStream stream(workload.dataset(EvalSplit::train), BatchStreamOptions{batch_size, o.seed, 0, 1, 2, 0});
    RunnerState state;
    const double start = now_seconds();
    for (int64_t step = 0; step < o.warmup_steps + o.measure_steps; ++step) {
      const StepContext context{step, derive_seed(o.seed, static_cast<uint64_t>(step)), &state, nullptr};
      const double t0 = now_seconds();
      Batch batch = algorithm->select_data(stream, context);
      const double t1 = now_seconds();
      UpdateResult update = algorithm->update(workload, *network, batch, context);
      if (update.loss.defined()) (void)update.loss.item<double>();  // as the runner does
      synchronize(device);
      const double t2 = now_seconds();
      state.step = step + 1;
      if (step >= o.warmup_steps) {
        step_times.push_back(t2 - t0);
        wait_total += t1 - t0;
        step_total += t2 - t0;
        if (step_times.size() >= 3 && t2 - start > o.max_seconds) break;
      }
    }
  } catch (const std::exception& e) {
    if (!is_out_of_memory(e)) throw;
    m.fits = false;
    m.failure = std::string("out of memory: ") + e.what();
    m.failure = m.failure.substr(0, m.failure.find('\n'));
    return m;
  }
  m.peak_memory_bytes = peak_device_memory(device);
  m.memory_measure = m.peak_memory_bytes ? "CUDA allocator peak" : "peak RSS";
  if (!m.peak_memory_bytes) m.peak_memory_bytes = peak_rss_bytes();
  m.steps = static_cast<int64_t>(step_times.size());
  m.step_seconds_median = median(step_times);
  m.step_seconds_min = *std::min_element(step_times.begin(), step_times.end());
  m.step_seconds_max = *std::max_element(step_times.begin(), step_times.end());
  // The median step: one slow step (a page fault, another process) does not move the verdict.
  m.examples_per_second = static_cast<double>(batch_size) / m.step_seconds_median;
  m.data_wait_fraction = wait_total / step_total;
  if (o.memory_limit_bytes && m.peak_memory_bytes && *m.peak_memory_bytes > *o.memory_limit_bytes) {
    m.fits = false;
    m.failure = m.memory_measure + " " + format_bytes(*m.peak_memory_bytes) + " exceeds --memory-limit " +
                format_bytes(*o.memory_limit_bytes);
    return m;
  }
  // The input pipeline alone (the same prefetching stream, nothing consuming time but gathering).
  BatchStream stream(workload.dataset(EvalSplit::train), BatchStreamOptions{batch_size, o.seed + 1, 0, 1, 2, 0});
  (void)stream.next();
  const double p0 = now_seconds();
  const int64_t fetches = std::max<int64_t>(m.steps, 5);
  for (int64_t i = 0; i < fetches; ++i) {
    Batch b = stream.next();
    if (device.is_cuda()) (void)b.inputs.to(device);
  }
  synchronize(device);
  m.pipeline_examples_per_second =
      static_cast<double>(batch_size) * static_cast<double>(fetches) / std::max(1e-9, now_seconds() - p0);
  return m;
}

}  // namespace

std::vector<int64_t> power_of_two_batch_sizes(int64_t min_batch_size, int64_t max_batch_size) {
  if (min_batch_size <= 0 || max_batch_size < min_batch_size) {
    throw InputError("batch sizes: need 0 < --min-batch-size <= --max-batch-size (got " +
                     std::to_string(min_batch_size) + ", " + std::to_string(max_batch_size) + ")");
  }
  std::vector<int64_t> sizes;
  for (int64_t b = min_batch_size; b <= max_batch_size; b *= 2) sizes.push_back(b);
  return sizes;
}

ThroughputProbeReport run_throughput_probe(const std::string& workload_name, const std::string& algorithm_name,
                                           const ThroughputProbeOptions& o) {
  if (o.warmup_steps < 0 || o.measure_steps < 3) throw InputError("probe: need >= 0 warm-up and >= 3 measured steps");
  std::vector<int64_t> sizes = o.batch_sizes.empty() ? power_of_two_batch_sizes(o.min_batch_size, o.max_batch_size)
                                                     : o.batch_sizes;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] <= 0 || (i > 0 && sizes[i] <= sizes[i - 1])) {
      throw InputError("--batch-sizes: positive and ascending (got " + std::to_string(sizes[i]) + ")");
    }
  }
  auto workload = create_workload(workload_name, o.workload_options);
  const AlgorithmInfo info = algorithm_info(algorithm_name);
  const Hyperparameters resolved = resolve_hyperparameters(info.hyperparameters, o.hparams, algorithm_name);
  ThroughputProbeOptions options = o;
  options.hparams = resolved;
  const c10::Device device = resolve_device(o.device);
  workload->load({o.data_dir, device});

  ThroughputProbeReport report;
  report.workload = workload_name;
  report.algorithm = algorithm_name;
  report.clock = to_string(options.clock);
  report.device = device.str();
  report.threads = num_threads();
  report.train_examples = workload->dataset(EvalSplit::train).size();
  report.baseline_memory_bytes = current_rss_bytes();
  for (int64_t b : sizes) {
    if (o.progress) o.progress->update("probe " + workload_name + ": batch size " + std::to_string(b));
    BatchSizeMeasurement m = measure_batch_size(*workload, algorithm_name, b, device, options);
    if (o.progress) {
      char line[256];
      if (m.fits) {
        std::snprintf(line, sizeof(line), "batch %6lld: %8.2f ms/step, %9.0f examples/s, data wait %4.1f%%, %s %s",
                      static_cast<long long>(b), 1e3 * m.step_seconds_median, m.examples_per_second,
                      100.0 * m.data_wait_fraction, m.memory_measure.c_str(),
                      m.peak_memory_bytes ? format_bytes(*m.peak_memory_bytes).c_str() : "?");
      } else {
        std::snprintf(line, sizeof(line), "batch %6lld: does not fit: %s", static_cast<long long>(b), m.failure.c_str());
      }
      o.progress->log(line);
    }
    report.measurements.push_back(m);
    if (!m.fits) break;
  }
  if (o.progress) o.progress->finish();
  report.verdict = throughput_verdict(report.measurements);
  return report;
}

std::string ThroughputProbeReport::to_json() const {
  nlohmann::ordered_json j;
  j["kind"] = "batch_size_probe";
  j["workload"] = workload;
  j["algorithm"] = algorithm;
  j["device"] = device;
  j["threads"] = threads;
  j["clock"] = clock;
  j["train_examples"] = train_examples;
  j["baseline_memory_bytes"] = baseline_memory_bytes ? nlohmann::ordered_json(*baseline_memory_bytes) : nlohmann::ordered_json();
  auto& ms = j["measurements"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < measurements.size(); ++i) {
    const auto& m = measurements[i];
    nlohmann::ordered_json e;
    e["batch_size"] = m.batch_size;
    e["fits"] = m.fits;
    if (!m.fits) {
      e["failure"] = m.failure;
    } else {
      e["steps"] = m.steps;
      e["step_seconds"] = {{"min", m.step_seconds_min}, {"median", m.step_seconds_median}, {"max", m.step_seconds_max}};
      e["examples_per_second"] = m.examples_per_second;
      e["data_wait_fraction"] = m.data_wait_fraction;
      e["pipeline_examples_per_second"] = m.pipeline_examples_per_second;
      e["peak_memory_bytes"] = m.peak_memory_bytes ? nlohmann::ordered_json(*m.peak_memory_bytes) : nlohmann::ordered_json();
      e["memory_measure"] = m.memory_measure;
    }
    ms.push_back(e);
  }
  nlohmann::ordered_json v;
  v["recommended_batch_size"] =
      verdict.recommended_batch_size ? nlohmann::ordered_json(*verdict.recommended_batch_size) : nlohmann::ordered_json();
  v["bottleneck"] = verdict.bottleneck;
  v["explanation"] = verdict.explanation;
  v["unreliable_batch_sizes"] = verdict.unreliable_batch_sizes;
  if (!verdict.warning.empty()) v["warning"] = verdict.warning;
  j["verdict"] = v;
  return j.dump(2);
}

}  // namespace pacer
