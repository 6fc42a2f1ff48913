#include "probe/throughput_verdict.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/format.h"

namespace pacer {
namespace {

std::string fixed(double v, int digits) {
  const char* formats[] = {"%.0f", "%.1f", "%.2f"};
  return format_double(formats[digits < 0 ? 0 : digits > 2 ? 2 : digits], v);
}

}  // namespace

namespace {

// A busy machine bends single measurements (batch 16 at 183 ms/step, max 955 ms, beside 1.7 ms
// at 64: "gain 307x"); such a verdict must not sound confident.
void warn_of_unreliable_timings(const std::vector<const BatchSizeMeasurement*>& fitting, ThroughputVerdict& v) {
  std::string evidence;
  for (size_t i = 0; i < fitting.size(); ++i) {
    const BatchSizeMeasurement& m = *fitting[i];
    const bool spread = m.step_seconds_min > 0 && m.step_seconds_max > 3.0 * m.step_seconds_min;
    const bool jump = i > 0 && v.doubling_gain[i] > 2.5 &&
                      m.batch_size <= 2 * fitting[i - 1]->batch_size;  // more than the batch grew
    if (!spread && !jump) continue;
    const BatchSizeMeasurement& noisy = jump && !spread ? *fitting[i - 1] : m;
    if (!v.unreliable_batch_sizes.empty() && v.unreliable_batch_sizes.back() == noisy.batch_size) continue;
    v.unreliable_batch_sizes.push_back(noisy.batch_size);
    evidence += (evidence.empty() ? "" : "; ") + std::string("batch size ") + std::to_string(noisy.batch_size) +
                (spread ? ": step times " + fixed(1000.0 * m.step_seconds_min, 2) + " to " +
                              fixed(1000.0 * m.step_seconds_max, 2) + " ms"
                        : ": throughput x" + fixed(v.doubling_gain[i], 2) + " to the next batch size");
  }
  if (!evidence.empty()) {
    v.warning = "the timings are unreliable (" + evidence +
                "): something else was using the machine; probe again on a quiet machine or with more --steps "
                "before trusting this verdict";
    v.explanation += ". Warning: " + v.warning;
  }
}

}  // namespace

ThroughputVerdict throughput_verdict(const std::vector<BatchSizeMeasurement>& measurements, double saturation) {
  ThroughputVerdict v;
  std::vector<const BatchSizeMeasurement*> fitting;
  const BatchSizeMeasurement* first_failure = nullptr;
  for (const auto& m : measurements) {
    if (m.fits) {
      v.doubling_gain.push_back(fitting.empty() ? std::numeric_limits<double>::quiet_NaN()
                                                : m.examples_per_second / fitting.back()->examples_per_second);
      fitting.push_back(&m);
    } else if (!first_failure) {
      first_failure = &m;
    }
  }
  if (fitting.empty()) {
    v.explanation = first_failure ? "no batch size fits: " + first_failure->failure : "nothing was measured";
    return v;
  }
  double best = 0.0;
  for (const auto* m : fitting) best = std::max(best, m->examples_per_second);
  size_t knee = 0;
  while (fitting[knee]->examples_per_second < saturation * best) ++knee;
  const BatchSizeMeasurement& k = *fitting[knee];
  v.recommended_batch_size = k.batch_size;
  const std::string at = "at batch size " + std::to_string(k.batch_size) + " (" +
                         fixed(k.examples_per_second, 0) + " examples/s)";

  const bool pipeline_known = k.pipeline_examples_per_second > 0.0;
  const double pipeline_margin = pipeline_known ? k.pipeline_examples_per_second / k.examples_per_second : 0.0;
  const bool last = knee + 1 == fitting.size();
  const double last_gain = fitting.size() > 1 ? v.doubling_gain.back() : std::numeric_limits<double>::quiet_NaN();
  const bool still_growing = last && fitting.size() > 1 && last_gain >= 1.1;
  if (k.data_wait_fraction >= 0.25 || (pipeline_known && pipeline_margin < 1.25)) {
    v.bottleneck = "data";
    v.explanation = at + " the step waits for data " + fixed(100.0 * k.data_wait_fraction, 0) +
                    "% of its time" +
                    (pipeline_known ? " and the input pipeline alone delivers " +
                                          fixed(k.pipeline_examples_per_second, 0) + " examples/s (" +
                                          fixed(pipeline_margin, 2) + "x the step's)"
                                    : std::string()) +
                    ": the input pipeline limits throughput; a larger batch will not train faster";
  } else if (first_failure && (still_growing || fitting.size() == 1)) {
    v.bottleneck = "memory";
    v.explanation = at + (fitting.size() == 1 ? std::string(" (the only batch size that fits)")
                                              : " throughput still grew " + fixed(last_gain, 2) +
                                                    "x over the previous batch size") +
                    ", and batch size " + std::to_string(first_failure->batch_size) + " does not fit (" +
                    first_failure->failure + "): memory limits the batch size";
  } else if (still_growing || (fitting.size() == 1 && !first_failure)) {
    v.bottleneck = "untested";
    v.explanation = at + " throughput was still growing at the largest batch size tried; probe larger batch sizes "
                    "(--max-batch-size)";
  } else {
    v.bottleneck = "compute";
    v.explanation = at + (k.examples_per_second >= best ? std::string(" throughput peaks")
                                                         : " throughput is within " +
                                                               fixed(100.0 * (1.0 - saturation), 0) +
                                                               "% of the best measured (" + fixed(best, 0) +
                                                               " examples/s)") +
                    ": beyond it the time per step grows in proportion to the batch, the device is saturated";
  }
  warn_of_unreliable_timings(fitting, v);
  return v;
}

}  // namespace pacer
