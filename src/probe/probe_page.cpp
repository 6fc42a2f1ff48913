#include "probe/probe_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/atomic_file.h"
#include "core/format.h"
#include "probe/memory_meter.h"
#include "report/html_page.h"
#include "report/svg_chart.h"
#include "report/xml_escape.h"

namespace pacer {
namespace {

std::string page_head(const std::string& title) {
  return html_page_head(title,
                        ".bad{color:#a00}.knee{background:#e6f4e6}p.verdict,ul.verdicts li{font-size:105%}"
                        "svg{display:block;margin:0.5em 0}") +
         "<h1>" + xml_escape(title) + "</h1>";
}

// ---- Batch-size probe.

std::string throughput_chart(const ThroughputProbeReport& r) {
  LineChart chart;
  chart.id = "throughput";
  chart.title = "Throughput vs batch size";
  chart.x_label = "batch size";
  chart.y_label = "examples per second";
  chart.log_x = chart.log2_x = true;
  chart.y_min = 0.0;
  ChartSeries step{"training step", palette_color(0), {}};
  ChartSeries pipeline{"input pipeline alone", palette_color(1), {}};
  step.markers = pipeline.markers = true;
  for (const auto& m : r.measurements) {
    if (!m.fits) continue;
    step.points.emplace_back(static_cast<double>(m.batch_size), m.examples_per_second);
    pipeline.points.emplace_back(static_cast<double>(m.batch_size), m.pipeline_examples_per_second);
  }
  // The pipeline is usually far faster: cap the axis so the step's curve stays readable, and
  // leave the pipeline out where it is above the cap everywhere (the table has its figures).
  double top = 0.0;
  for (const auto& p : step.points) top = std::max(top, p.second);
  if (top > 0) chart.y_max = 1.6 * top;
  chart.series = {step};
  for (const auto& p : pipeline.points) {
    if (p.second <= 1.6 * top) {
      chart.series.push_back(pipeline);
      break;
    }
  }
  if (r.verdict.recommended_batch_size) {
    ChartSeries knee{"recommended", palette_color(2), {}};
    knee.markers_only = true;
    knee.marker_size = 6;
    for (const auto& p : step.points)
      if (p.first == static_cast<double>(*r.verdict.recommended_batch_size)) knee.points.push_back(p);
    chart.series.push_back(knee);
  }
  return chart.render();
}

std::string step_time_chart(const ThroughputProbeReport& r) {
  LineChart chart;
  chart.id = "step-time";
  chart.title = "Time per step (median; bars: min to max)";
  chart.x_label = "batch size";
  chart.y_label = "milliseconds";
  chart.log_x = chart.log2_x = true;
  chart.y_min = 0.0;
  ChartSeries s{"time per step", palette_color(0), {}};
  s.markers_only = true;
  ChartSeries wait{"of it waiting for data", palette_color(1), {}};
  for (const auto& m : r.measurements) {
    if (!m.fits) continue;
    s.points.emplace_back(static_cast<double>(m.batch_size), 1e3 * m.step_seconds_median);
    s.y_bars.emplace_back(1e3 * m.step_seconds_min, 1e3 * m.step_seconds_max);
    wait.points.emplace_back(static_cast<double>(m.batch_size), 1e3 * m.step_seconds_median * m.data_wait_fraction);
  }
  chart.series = {s, wait};
  return chart.render();
}

// ---- Stability probe.

std::string final_loss_chart(const StabilityProbeReport& r) {
  LineChart chart;
  chart.id = "final-loss";
  chart.title = "Training loss at the end of each run vs learning rate";
  chart.x_label = "learning rate";
  chart.y_label = "final training loss";
  chart.log_x = true;
  ChartSeries stable{"stable", palette_color(0), {}};
  ChartSeries unstable{"unstable (at the top: diverged)", "#c00000", {}};
  stable.markers_only = unstable.markers_only = true;
  unstable.marker = "cross";
  double first = 0.0, top = 0.0;
  for (size_t i = 0; i < r.sweep.size(); ++i) {
    const auto& a = r.sweep_assessments[i];
    if (a.stable) first = std::max(first, a.initial_loss), top = std::max(top, a.final_loss);
  }
  const double cap = first > 0 ? 1.5 * first : 1.0;
  for (size_t i = 0; i < r.sweep.size(); ++i) {
    const auto& a = r.sweep_assessments[i];
    const double y = std::isfinite(a.final_loss) ? std::min(a.final_loss, 0.97 * cap) : 0.97 * cap;
    (a.stable ? stable : unstable).points.emplace_back(r.sweep[i].learning_rate, y);
  }
  chart.y_min = 0.0;
  chart.y_max = cap;
  chart.series = {stable, unstable};
  return chart.render();
}

// Per-step loss curves, the y axis capped at twice the first step's loss (blow-ups leave the top).
std::string loss_curves_chart(const std::string& id, const std::string& title, const std::vector<StabilityRun>& runs,
                              const std::vector<std::string>& names) {
  LineChart chart;
  chart.id = id;
  chart.title = title;
  chart.x_label = "step";
  chart.y_label = "training loss";
  double first = 0.0;
  for (size_t i = 0; i < runs.size(); ++i) {
    ChartSeries s{names[i], palette_color(i), {}};
    for (size_t t = 0; t < runs[i].losses.size(); ++t) {
      const double l = runs[i].losses[t];
      if (t == 0 && std::isfinite(l)) first = std::max(first, l);
      s.points.emplace_back(static_cast<double>(t + 1), std::isfinite(l) ? l : 1e30);
    }
    chart.series.push_back(s);
  }
  chart.y_min = 0.0;
  chart.y_max = first > 0 ? 2.0 * first : 1.0;
  return chart.render();
}

std::string grad_norm_chart(const StabilityProbeReport& r) {
  LineChart chart;
  chart.id = "grad-norms";
  chart.title = "Gradient norm per step (train/grad_norm)";
  chart.x_label = "step";
  chart.y_label = "global gradient norm";
  size_t color = 0;
  double top = 0.0;
  for (size_t i = 0; i < r.sweep.size(); ++i) {
    const double lr = r.sweep[i].learning_rate;
    const bool shown = (r.verdict.best && lr == *r.verdict.best) ||
                       (r.verdict.divergence_point && lr == *r.verdict.divergence_point);
    if (!shown || r.sweep[i].grad_norms.empty()) continue;
    ChartSeries s{"lr " + format_4g(lr), palette_color(color++), {}};
    for (size_t t = 0; t < r.sweep[i].grad_norms.size(); ++t) {
      const double n = r.sweep[i].grad_norms[t];
      s.points.emplace_back(static_cast<double>(t + 1), std::isfinite(n) ? n : 1e30);
      if (lr == *r.verdict.best && std::isfinite(n)) top = std::max(top, n);
    }
    chart.series.push_back(s);
  }
  if (top > 0) chart.y_max = 3.0 * top;
  chart.y_min = 0.0;
  if (r.clip_threshold) chart.hlines.push_back({*r.clip_threshold, "90th percentile: clip threshold", "#c00000"});
  return chart.render();
}

std::string run_row(const StabilityRun& run, const RunAssessment& a) {
  std::ostringstream h;
  h << "<tr" << (a.stable ? "" : " class=\"bad\"") << "><td>" << format_4g(run.learning_rate) << "</td><td>"
    << run.warmup_steps << "</td><td>" << (run.grad_clip > 0 ? format_4g(run.grad_clip) : "-") << "</td><td class=\"l\">"
    << xml_escape(a.reason) << "</td><td>" << format_4g(a.initial_loss) << "</td><td>" << format_4g(a.final_loss) << "</td><td>"
    << format_4g(a.max_loss) << "</td><td>" << a.spikes.size() << "</td><td>"
    << (run.grad_norms.empty() ? "-" : format_4g(percentile(run.grad_norms, 50))) << "</td><td>"
    << (run.grad_norms.empty() ? "-" : format_4g(percentile(run.grad_norms, 90))) << "</td><td>"
    << (run.grad_clip > 0 ? format_double("%.0f%%", 100.0 * a.clipped_fraction) : "-") << "</td></tr>";
  return h.str();
}

const char* kRunHeader =
    "<tr><th>learning rate</th><th>warmup steps</th><th>grad clip</th><th>verdict</th><th>first loss</th>"
    "<th>final loss</th><th>max loss</th><th>spikes</th><th>grad norm p50</th><th>p90</th><th>clipped</th></tr>";

}  // namespace

std::string render_throughput_probe_html(const ThroughputProbeReport& r) {
  std::ostringstream h;
  h << page_head("Pacer batch-size probe: " + r.workload + " x " + r.algorithm);
  h << "<p>Device " << xml_escape(r.device) << ", intra-op threads: " << r.threads << "; " << r.train_examples
    << " training examples. Each batch size: a few warm-up steps, then up to 20 timed steps of the full training "
       "step (data selection and update); then the input pipeline alone.</p>";
  h << "<p id=\"verdict\" class=\"verdict\"><b>Verdict:</b> "
    << (r.verdict.recommended_batch_size ? "batch size " + std::to_string(*r.verdict.recommended_batch_size) + " (" +
                                               r.verdict.bottleneck + "-bound): "
                                         : std::string())
    << xml_escape(r.verdict.explanation) << ".</p>";
  h << "<table id=\"batch-sizes\"><tr><th>batch size</th><th>ms/step (median)</th><th>min</th><th>max</th>"
       "<th>examples/s</th><th>gain over previous</th><th>data wait</th><th>pipeline alone (examples/s)</th>"
       "<th>peak memory</th><th>fits</th></tr>";
  size_t fit_index = 0;
  for (const auto& m : r.measurements) {
    if (!m.fits) {
      h << "<tr class=\"bad\"><td>" << m.batch_size << "</td><td class=\"l\" colspan=\"8\">" << xml_escape(m.failure)
        << "</td><td>no</td></tr>";
      continue;
    }
    const double gain = r.verdict.doubling_gain[fit_index++];
    const bool knee = r.verdict.recommended_batch_size && *r.verdict.recommended_batch_size == m.batch_size;
    h << "<tr" << (knee ? " class=\"knee\"" : "") << "><td>" << m.batch_size << "</td><td>"
      << format_double("%.2f", 1e3 * m.step_seconds_median) << "</td><td>" << format_double("%.2f", 1e3 * m.step_seconds_min) << "</td><td>"
      << format_double("%.2f", 1e3 * m.step_seconds_max) << "</td><td>" << format_double("%.0f", m.examples_per_second) << "</td><td>"
      << (std::isfinite(gain) ? format_double("%.2fx", gain) : "-") << "</td><td>" << format_double("%.1f%%", 100.0 * m.data_wait_fraction)
      << "</td><td>" << format_double("%.0f", m.pipeline_examples_per_second) << "</td><td>"
      << (m.peak_memory_bytes ? format_bytes(*m.peak_memory_bytes) + " (" + m.memory_measure + ")" : "-")
      << "</td><td>yes</td></tr>";
  }
  h << "</table>";
  h << throughput_chart(r) << step_time_chart(r);
  h << "<p>How to read it: while the device is not saturated, doubling the batch size nearly doubles the "
       "examples per second (gain near 2x). The recommended batch size is the smallest whose throughput is within "
       "10% of the best; larger batches then only cost retuning. A training step that waits for data, or an input "
       "pipeline barely faster than training, means the pipeline is the bottleneck.</p>";
  h << "</body></html>\n";
  return h.str();
}

void write_throughput_probe(const ThroughputProbeReport& report, const std::string& out_dir) {
  create_directories(out_dir);
  write_file_atomic(out_dir + "/probe.json", report.to_json() + "\n");
  write_file_atomic(out_dir + "/probe.html", render_throughput_probe_html(report));
}

std::string render_stability_probe_html(const StabilityProbeReport& r) {
  std::ostringstream h;
  h << page_head("Pacer stability probe: " + r.workload + " x " + r.algorithm);
  h << "<p>" << r.sweep.size() << " runs of " << r.steps << " steps at batch size " << r.batch_size
    << ", no warmup and no clipping, over a geometric learning-rate sweep; then, at the first unstable rate, "
       "warmups of increasing length and gradient clipping at the 90th percentile of a stable run's gradient "
       "norms.</p>";
  h << "<ul id=\"verdicts\" class=\"verdicts\"><li>" << xml_escape(r.verdict.explanation) << "</li><li>"
    << xml_escape(r.warmup_advice) << "</li><li>" << xml_escape(r.clipping_advice) << "</li></ul>";
  h << "<h2>Learning-rate sweep</h2><table id=\"sweep\">" << kRunHeader;
  for (size_t i = 0; i < r.sweep.size(); ++i) h << run_row(r.sweep[i], r.sweep_assessments[i]);
  h << "</table>";
  h << final_loss_chart(r);
  std::vector<std::string> names;
  for (const auto& run : r.sweep) names.push_back("lr " + format_4g(run.learning_rate));
  h << loss_curves_chart("loss-curves", "Training loss per step, by learning rate", r.sweep, names);
  h << grad_norm_chart(r);
  if (!r.warmup_runs.empty() || r.clip_run) {
    h << "<h2>Fixes tested at learning rate "
      << (r.verdict.divergence_point ? format_4g(*r.verdict.divergence_point) : std::string("-")) << "</h2><table id=\"fixes\">"
      << kRunHeader;
    std::vector<StabilityRun> runs;
    std::vector<std::string> fix_names;
    for (size_t i = 0; i < r.warmup_runs.size(); ++i) {
      h << run_row(r.warmup_runs[i], r.warmup_assessments[i]);
      runs.push_back(r.warmup_runs[i]);
      fix_names.push_back("warmup " + std::to_string(r.warmup_runs[i].warmup_steps));
    }
    if (r.clip_run) {
      h << run_row(*r.clip_run, *r.clip_assessment);
      runs.push_back(*r.clip_run);
      fix_names.push_back("clip " + format_4g(r.clip_run->grad_clip));
    }
    for (size_t i = 0; i < r.sweep.size(); ++i) {
      if (r.verdict.divergence_point && r.sweep[i].learning_rate == *r.verdict.divergence_point) {
        runs.push_back(r.sweep[i]);
        fix_names.push_back("no fix");
      }
    }
    h << "</table>" << loss_curves_chart("fixes", "The fixes: training loss per step", runs, fix_names);
  }
  h << "<p>How to read it: a run is unstable when it diverges, when its loss rises above 3x the first step's, or when "
       "it ends no lower than it started; a spike is a step whose loss exceeds twice the median of the 20 steps "
       "before it. Tune below the divergence point; warmup and clipping let training use rates near it.</p>";
  h << "</body></html>\n";
  return h.str();
}

void write_stability_probe(const StabilityProbeReport& report, const std::string& out_dir) {
  create_directories(out_dir);
  write_file_atomic(out_dir + "/stability.json", report.to_json() + "\n");
  write_file_atomic(out_dir + "/stability.html", render_stability_probe_html(report));
}

std::string format_throughput_probe(const ThroughputProbeReport& r) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof(line), "%10s %10s %12s %8s %10s %14s %12s\n", "batch", "ms/step", "examples/s", "gain",
                "data wait", "pipeline ex/s", "peak mem");
  out << line;
  size_t fit_index = 0;
  for (const auto& m : r.measurements) {
    if (!m.fits) {
      std::snprintf(line, sizeof(line), "%10lld  does not fit: %s\n", static_cast<long long>(m.batch_size),
                    m.failure.c_str());
      out << line;
      continue;
    }
    const double gain = r.verdict.doubling_gain[fit_index++];
    std::snprintf(line, sizeof(line), "%10lld %10.2f %12.0f %8s %9.1f%% %14.0f %12s\n",
                  static_cast<long long>(m.batch_size), 1e3 * m.step_seconds_median, m.examples_per_second,
                  std::isfinite(gain) ? format_double("%.2fx", gain).c_str() : "-", 100.0 * m.data_wait_fraction,
                  m.pipeline_examples_per_second, m.peak_memory_bytes ? format_bytes(*m.peak_memory_bytes).c_str() : "-");
    out << line;
  }
  out << "verdict: ";
  if (r.verdict.recommended_batch_size) {
    out << "batch size " << *r.verdict.recommended_batch_size << " (" << r.verdict.bottleneck << "-bound): ";
  }
  out << r.verdict.explanation << "\n";
  return out.str();
}

std::string format_stability_probe(const StabilityProbeReport& r) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof(line), "%12s %8s %10s %10s %7s %10s  %s\n", "lr", "stable", "first", "final", "spikes",
                "gnorm p90", "verdict");
  out << line;
  for (size_t i = 0; i < r.sweep.size(); ++i) {
    const auto& a = r.sweep_assessments[i];
    std::snprintf(line, sizeof(line), "%12.4g %8s %10.4g %10.4g %7zu %10s  %s\n", r.sweep[i].learning_rate,
                  a.stable ? "yes" : "no", a.initial_loss, a.final_loss, a.spikes.size(),
                  r.sweep[i].grad_norms.empty() ? "-" : format_4g(percentile(r.sweep[i].grad_norms, 90)).c_str(),
                  a.reason.c_str());
    out << line;
  }
  out << "learning rate: " << r.verdict.explanation << "\nwarmup: " << r.warmup_advice
      << "\nclipping: " << r.clipping_advice << "\n";
  return out.str();
}

}  // namespace pacer
