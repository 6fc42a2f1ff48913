#pragma once
// A small line-chart renderer to SVG text (no dependencies, no scripts): axes with round ticks,
// one polyline per series (optionally a step function), dashed horizontal reference lines and a
// legend. The <svg> element is self-contained, so it can be saved as a file or inlined in HTML.
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
  std::vector<ChartSeries> series;
  std::vector<ChartLine> hlines;
  std::string render() const;
};

const std::string& palette_color(size_t index);  // distinguishable colours, cycling
std::string xml_escape(const std::string& text);
// About `count` round tick values covering [lo, hi] (steps of 1, 2, 2.5 or 5 x 10^k).
std::vector<double> nice_ticks(double lo, double hi, int count);

}  // namespace pacer
