#pragma once
// A small line-chart renderer to SVG text (no dependencies, no scripts): axes with round ticks,
// one polyline per series (optionally a step function), dashed horizontal reference lines and a
// legend. The <svg> element is self-contained, so it can be saved as a file or inlined in HTML.
// Scatter plots: a series with markers_only draws a marker per point instead of a line
// (optionally with vertical min-max bars); `markers` adds them to a line at its measured points.
// log_x / log_y put an axis in log space with ticks labelled by value (32 64 128, 100 1000,
// 0.01 0.1), at powers of two with log2_x. Bands (a shaded region between two curves) and
// vertical reference lines mark fits and thresholds. The legend lists only series with data,
// and points outside fixed ranges are counted in a "clipped" note instead of vanishing silently.
//
//   pacer::LineChart chart;
//   chart.id = "performance-profiles";
//   chart.series.push_back({"nadamw", pacer::palette_color(0), {{1, 0.5}, {4, 1}}, /*step=*/true});
//   std::string svg = chart.render();
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pacer {

struct ChartSeries {
  std::string name;
  std::string color;
  std::vector<std::pair<double, double>> points;  // (x, y), x increasing
  bool step = false;                              // hold y until the next x (profiles)
  bool markers_only = false;                      // scatter: a marker per point, no line
  std::string marker = "circle";                  // markers_only: circle, ring, square, cross
  double marker_size = 3.5;                       // radius in px
  std::vector<std::pair<double, double>> y_bars = {};  // empty or one (low, high) per point: a vertical bar
  bool markers = false;                                // a line with a marker at each point
  bool dashed = false;  // a fitted or reference curve, or a colour's second use (palette_dashed)
};

struct ChartBand {
  std::string name;
  std::string color;
  std::vector<std::pair<double, double>> lower, upper;  // (x, y), x increasing, the same xs
};

struct ChartVLine {
  double x = 0.0;
  std::string label;
  std::string color = "#444";
};

struct ChartLine {
  double y = 0.0;
  std::string label;
  std::string color = "#444";
};

struct LineChart {
  std::string id, css_class, title, x_label, y_label;
  int width = 720, height = 380;
  std::optional<double> x_min, x_max, y_min, y_max;  // unset: from the data (and reference lines)
  bool log_x = false;  // x in log10 space, ticks at powers of ten (and 2, 5 on short ranges); x <= 0 dropped
  bool log2_x = false;  // with log_x: ticks at powers of two (batch sizes)
  bool log_y = false;   // y in log10 space, ticks as log_x; y <= 0 dropped
  std::vector<std::pair<double, std::string>> x_tick_labels;  // non-empty: these ticks instead of round ones
  std::vector<ChartSeries> series;
  std::vector<ChartLine> hlines;
  std::vector<ChartVLine> vlines;
  std::vector<ChartBand> bands;  // drawn under the series
  std::string render() const;
};

const std::string& palette_color(size_t index);  // distinguishable colours, cycling
// Whether series `index` is drawn dashed: from the palette's second round on, a line has a colour
// an earlier one has, and the dash tells the two apart (a 15-algorithm board has five such pairs).
bool palette_dashed(size_t index);
// The CSS background of a table swatch for series `index`: its colour, striped when dashed.
std::string palette_swatch_css(size_t index);
// About `count` round tick values covering [lo, hi] (steps of 1, 2, 2.5 or 5 x 10^k).
std::vector<double> nice_ticks(double lo, double hi, int count);
// True when the positive values span at least `decades` powers of ten (a log axis reads better).
bool spans_decades(const std::vector<double>& values, double decades);

}  // namespace pacer
