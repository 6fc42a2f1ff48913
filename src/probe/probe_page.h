#pragma once
// The outputs of `pacer probe`: JSON for machines and one self-contained HTML page for people
// (inline CSS and SVG, no scripts, no network). Torch-free.
//   batch-size probe: OUT/probe.json, OUT/probe.html with p#verdict, table#batch-sizes,
//     svg#throughput (examples/s vs batch size, log axis; the input pipeline alone beside it)
//     and svg#step-time;
//   stability probe: OUT/stability.json, OUT/stability.html with ul#verdicts, table#sweep,
//     svg#final-loss (vs learning rate, unstable runs marked), svg#loss-curves, svg#grad-norms
//     and svg#fixes (the warmup and clipping runs).
//
//   pacer::write_throughput_probe(report, "runs/probe");
#include <string>

#include "probe/stability_probe.h"
#include "probe/throughput_probe.h"

namespace pacer {

std::string render_throughput_probe_html(const ThroughputProbeReport& report);
void write_throughput_probe(const ThroughputProbeReport& report, const std::string& out_dir);

std::string render_stability_probe_html(const StabilityProbeReport& report);
void write_stability_probe(const StabilityProbeReport& report, const std::string& out_dir);

// Text tables for the terminal.
std::string format_throughput_probe(const ThroughputProbeReport& report);
std::string format_stability_probe(const StabilityProbeReport& report);

}  // namespace pacer
