#pragma once
// The pictures and the page of a batch-size scaling study: the log2-log2 plot of steps-to-result
// against batch size (one line per series, the perfect-scaling line through the first measured
// point), the best learning rate at each batch size, and a self-contained HTML page (inline SVG
// and CSS, no scripts) with the critical-batch summary (table#critical-batch) and one table per
// series (table.scaling-table). `pacer scale --out DIR` writes DIR/report.html with it, and
// `pacer report DIR` renders it again from DIR/scaling.json.
//
//   pacer::write_scaling_report("runs/scale", "runs/scale/report.html");
#include <string>

#include "scale/scaling_study.h"

namespace pacer {

std::string scaling_plot_svg(const ScalingReport& report);
std::string learning_rate_plot_svg(const ScalingReport& report);  // empty: no learning rates
std::string render_scaling_html(const ScalingReport& report);
// Reads DIR/scaling.json (InputError naming it when missing or malformed) and writes the page.
void write_scaling_report(const std::string& dir, const std::string& out_file);

}  // namespace pacer
