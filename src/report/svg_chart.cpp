#include "report/svg_chart.h"
#include "report/xml_escape.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace pacer {
namespace {

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", v);
  return buffer;
}

std::string tick_label(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", std::abs(v) < 1e-12 ? 0.0 : v);
  return buffer;
}

// One marker centred at (x, y) in px.
std::string marker_svg(const std::string& shape, double x, double y, double r, const std::string& color) {
  std::string out;
  if (shape == "cross") {
    out = "<path class=\"marker cross\" d=\"M" + num(x - r) + "," + num(y - r) + " L" + num(x + r) + "," + num(y + r) +
          " M" + num(x - r) + "," + num(y + r) + " L" + num(x + r) + "," + num(y - r) + "\" stroke=\"" + color +
          "\" stroke-width=\"2\" fill=\"none\"/>\n";
  } else if (shape == "square") {
    out = "<rect class=\"marker\" x=\"" + num(x - r) + "\" y=\"" + num(y - r) + "\" width=\"" + num(2 * r) +
          "\" height=\"" + num(2 * r) + "\" fill=\"" + color + "\"/>\n";
  } else if (shape == "ring") {
    out = "<circle class=\"marker ring\" cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) +
          "\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"/>\n";
  } else {
    out = "<circle class=\"marker\" cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\" fill=\"" +
          color + "\" fill-opacity=\"0.8\"/>\n";
  }
  return out;
}

// A log axis's tick labelled by its value: 32, 1000, 0.01, 2e+06 (not an exponent).
std::string value_label(double v) {
  char buffer[32];
  const double rounded = std::round(v);
  if (v >= 1 && v < 1e7 && std::abs(v - rounded) < 1e-6 * v) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", rounded);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.3g", v);
  }
  return buffer;
}

// Powers of two in log10 units (every other one, or every fourth, when there are many).
std::vector<double> log2_ticks(double lo, double hi) {
  const double l2 = std::log2(10.0);
  const int first = static_cast<int>(std::ceil(lo * l2 - 1e-9)), last = static_cast<int>(std::floor(hi * l2 + 1e-9));
  const int count = last - first + 1;
  const int every = count > 24 ? 4 : count > 12 ? 2 : 1;
  std::vector<double> ticks;
  for (int e = first; e <= last; ++e) {
    if (e % every == 0) ticks.push_back(e / l2);
  }
  return ticks;
}

// Log-axis ticks in log10 units: every power of ten on long ranges, 1-2-5 or 1..9 on short ones.
std::vector<double> log_ticks(double lo, double hi) {
  const double span = hi - lo;
  std::vector<double> mantissas = {1};
  if (span < 0.7) mantissas = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  else if (span < 2.5) mantissas = {1, 2, 5};
  const int every = span > 8 ? 2 : 1;
  std::vector<double> ticks;
  for (int e = static_cast<int>(std::floor(lo)) - 1; e <= static_cast<int>(std::ceil(hi)); ++e) {
    if (mantissas.size() == 1 && e % every != 0) continue;
    for (double m : mantissas) {
      const double t = e + std::log10(m);
      if (t >= lo - 1e-9 && t <= hi + 1e-9) ticks.push_back(t);
    }
  }
  return ticks;
}

// Okabe-Ito and Tableau hues: readable for colour-blind viewers and on white.
const std::vector<std::string>& palette() {
  static const std::vector<std::string> colors = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                                  "#56B4E9", "#000000", "#8C564B", "#7F7F7F", "#BCBD22"};
  return colors;
}
}  // namespace

const std::string& palette_color(size_t index) { return palette()[index % palette().size()]; }

bool palette_dashed(size_t index) { return (index / palette().size()) % 2 == 1; }

std::string palette_swatch_css(size_t index) {
  const std::string& c = palette_color(index);
  if (!palette_dashed(index)) return "background:" + c;
  return "background:repeating-linear-gradient(90deg," + c + " 0 4px,#ffffff 4px 6px)";
}

std::vector<double> nice_ticks(double lo, double hi, int count) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / std::max(1, count);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

bool spans_decades(const std::vector<double>& values, double decades) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
  for (double v : values) {
    if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  return hi > 0 && std::isfinite(lo) && std::log10(hi / lo) >= decades;
}

namespace {

using Ticks = std::vector<std::pair<double, std::string>>;

// Where a LineChart's data lands: the axes' ranges (in log10 units on a log axis), the plot's
// rectangle in pixels, and how many points fall outside. Settled before anything is drawn.
struct ChartFrame {
  bool log_x = false, log_y = false;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  double left = 64, top = 34, right = 170, bottom = 48, plot_w = 0, plot_h = 0;
  size_t clipped = 0;

  // Under a log axis every coordinate is in log10 units; values <= 0 have no place there.
  double tx(double x) const { return log_x ? (x > 0 ? std::log10(x) : kNan) : x; }
  double ty(double y) const { return log_y ? (y > 0 ? std::log10(y) : kNan) : y; }
  double px(double x) const { return left + (x - x0) / (x1 - x0) * plot_w; }
  double py(double y) const { return top + (1.0 - (y - y0) / (y1 - y0)) * plot_h; }

  static constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
};

// The data's ranges, then the fixed ones, then a little air.
void fit_ranges(const LineChart& c, ChartFrame& f) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  auto extend = [&](double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  };
  for (const auto& s : c.series) {
    for (size_t i = 0; i < s.points.size(); ++i) {
      const double x = f.tx(s.points[i].first);
      extend(x, f.ty(s.points[i].second));
      if (i < s.y_bars.size()) extend(x, f.ty(s.y_bars[i].first)), extend(x, f.ty(s.y_bars[i].second));
    }
  }
  for (const auto& b : c.bands) {
    for (const auto& p : b.lower) extend(f.tx(p.first), f.ty(p.second));
    for (const auto& p : b.upper) extend(f.tx(p.first), f.ty(p.second));
  }
  for (const auto& h : c.hlines) {
    const double y = f.ty(h.y);
    if (!std::isnan(y)) y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  for (const auto& v : c.vlines) {
    const double x = f.tx(v.x);
    if (!std::isnan(x)) x0 = std::min(x0, x), x1 = std::max(x1, x);
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1;
  if (!std::isfinite(y0)) y0 = 0, y1 = 1;
  if (c.x_min && !std::isnan(f.tx(*c.x_min))) x0 = f.tx(*c.x_min);
  if (c.x_max && !std::isnan(f.tx(*c.x_max))) x1 = f.tx(*c.x_max);
  if (c.y_min && !std::isnan(f.ty(*c.y_min))) y0 = f.ty(*c.y_min);
  if (c.y_max && !std::isnan(f.ty(*c.y_max))) y1 = f.ty(*c.y_max);
  if (!(x1 > x0)) x0 -= 0.5, x1 += 0.5;
  if (!(y1 > y0)) y0 -= 0.5, y1 += 0.5;
  if (!c.y_min && !c.y_max) {  // a little air above and below the data
    const double pad = 0.05 * (y1 - y0);
    y0 -= pad, y1 += pad;
  }
  if (c.log_x && !c.x_min && !c.x_max) {  // and beside it, so end markers are not cut in half
    const double pad = 0.03 * (x1 - x0);
    x0 -= pad, x1 += pad;
  }
  f.x0 = x0, f.x1 = x1, f.y0 = y0, f.y1 = y1;
}

// Points a fixed range leaves out (or a log axis cannot show): the chart says how many.
size_t count_clipped(const LineChart& c, const ChartFrame& f) {
  size_t clipped = 0;
  const double ex = 1e-9 * (f.x1 - f.x0), ey = 1e-9 * (f.y1 - f.y0);
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      const double u = f.tx(x), v = f.ty(y);
      if (!std::isfinite(u) || !std::isfinite(v) || u < f.x0 - ex || u > f.x1 + ex || v < f.y0 - ey || v > f.y1 + ey) {
        ++clipped;
      }
    }
  }
  return clipped;
}

Ticks y_ticks_of(const LineChart& c, const ChartFrame& f) {
  Ticks ticks;
  if (c.log_y) {
    for (double t : log_ticks(f.y0, f.y1)) ticks.emplace_back(t, value_label(std::pow(10.0, t)));
  } else {
    for (double t : nice_ticks(f.y0, f.y1, 5)) ticks.emplace_back(t, tick_label(t));
  }
  return ticks;
}

Ticks x_ticks_of(const LineChart& c, const ChartFrame& f) {
  Ticks ticks;
  if (!c.x_tick_labels.empty()) {
    for (const auto& [x, label] : c.x_tick_labels) {
      if (!std::isnan(f.tx(x))) ticks.emplace_back(f.tx(x), xml_escape(label));
    }
  } else if (c.log_x && c.log2_x && log2_ticks(f.x0, f.x1).size() >= 2) {
    for (double t : log2_ticks(f.x0, f.x1)) ticks.emplace_back(t, value_label(std::pow(10.0, t)));
  } else if (c.log_x) {
    for (double t : log_ticks(f.x0, f.x1)) ticks.emplace_back(t, value_label(std::pow(10.0, t)));
  } else {
    for (double t : nice_ticks(f.x0, f.x1, 6)) ticks.emplace_back(t, tick_label(t));
  }
  return ticks;
}

// The frame: ranges, clipped points, then the margins the tick labels and the clipped note need.
ChartFrame frame_of(const LineChart& c, Ticks& y_ticks) {
  ChartFrame f;
  f.log_x = c.log_x, f.log_y = c.log_y;
  // The legend sits right of the plot: room for the longest name (about 7 px a character at 12 px).
  size_t longest = 0;
  for (const auto& s : c.series) longest = std::max(longest, s.name.size());
  for (const auto& b : c.bands) longest = std::max(longest, b.name.size());
  f.right = std::max(170.0, 52.0 + 7.0 * static_cast<double>(longest));
  f.plot_w = c.width - f.left - f.right, f.plot_h = c.height - f.top - f.bottom;
  fit_ranges(c, f);
  f.clipped = count_clipped(c, f);
  y_ticks = y_ticks_of(c, f);
  // Room for the widest y tick label beside the rotated y title (long labels ran under it), and a
  // line under the title for the clipped note (it ran into long titles).
  size_t widest = 0;
  for (const auto& tick : y_ticks) widest = std::max(widest, tick.second.size());
  f.left = std::max(64.0, 34.0 + 7.0 * static_cast<double>(widest));
  if (f.clipped > 0) f.top = 50;
  f.plot_w = c.width - f.left - f.right, f.plot_h = c.height - f.top - f.bottom;
  return f;
}

// The header, the title, the clipped note, the grid with its ticks, the plot's border, the axis titles.
void draw_axes(std::ostream& svg, const LineChart& c, const ChartFrame& f, const Ticks& x_ticks, const Ticks& y_ticks) {
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\"";
  if (!c.id.empty()) svg << " id=\"" << xml_escape(c.id) << "\"";
  if (!c.css_class.empty()) svg << " class=\"" << xml_escape(c.css_class) << "\"";
  svg << " width=\"" << c.width << "\" height=\"" << c.height << "\" viewBox=\"0 0 " << c.width << " " << c.height
      << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" role=\"img\">\n";
  svg << "<title>" << xml_escape(c.title) << "</title>\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  svg << "<text x=\"" << num(f.left) << "\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" << xml_escape(c.title)
      << "</text>\n";
  if (f.clipped > 0) {
    svg << "<text class=\"clipped-note\" x=\"" << num(f.left + f.plot_w) << "\" y=\"40\" text-anchor=\"end\" fill=\"#a33\">"
        << f.clipped << (f.clipped == 1 ? " point" : " points") << " outside the plotted range (clipped)</text>\n";
  }
  for (const auto& [t, label] : x_ticks) {
    svg << "<line x1=\"" << num(f.px(t)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.px(t)) << "\" y2=\""
        << num(f.top + f.plot_h) << "\" stroke=\"#e5e5e5\"/>\n";
    svg << "<text x=\"" << num(f.px(t)) << "\" y=\"" << num(f.top + f.plot_h + 16) << "\" text-anchor=\"middle\">"
        << label << "</text>\n";
  }
  for (const auto& [t, label] : y_ticks) {
    svg << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.py(t)) << "\" x2=\"" << num(f.left + f.plot_w)
        << "\" y2=\"" << num(f.py(t)) << "\" stroke=\"#e5e5e5\"/>\n";
    svg << "<text x=\"" << num(f.left - 6) << "\" y=\"" << num(f.py(t) + 4) << "\" text-anchor=\"end\">" << label
        << "</text>\n";
  }
  svg << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.plot_w) << "\" height=\""
      << num(f.plot_h) << "\" fill=\"none\" stroke=\"#888\"/>\n";
  svg << "<text x=\"" << num(f.left + f.plot_w / 2) << "\" y=\"" << num(c.height - 10.0)
      << "\" text-anchor=\"middle\">" << xml_escape(c.x_label + (c.log_x ? " (log scale)" : "")) << "</text>\n";
  svg << "<text transform=\"translate(16," << num(f.top + f.plot_h / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << xml_escape(c.y_label + (c.log_y ? " (log scale)" : "")) << "</text>\n";
}

// One series: markers (with error bars) or a polyline (stepped if asked), markers on its points.
void draw_series(std::ostream& svg, const ChartSeries& s, const ChartFrame& f) {
  if (s.markers_only) {
    svg << "<g class=\"series markers\" data-name=\"" << xml_escape(s.name) << "\">\n";
    for (size_t i = 0; i < s.points.size(); ++i) {
      const double x = f.tx(s.points[i].first), y = f.ty(s.points[i].second);
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      if (i < s.y_bars.size() && !std::isnan(f.ty(s.y_bars[i].first)) && !std::isnan(f.ty(s.y_bars[i].second))) {
        const double lo = f.py(f.ty(s.y_bars[i].first)), hi = f.py(f.ty(s.y_bars[i].second));
        svg << "<path class=\"bar\" d=\"M" << num(f.px(x)) << "," << num(lo) << " L" << num(f.px(x)) << "," << num(hi)
            << " M" << num(f.px(x) - 5) << "," << num(lo) << " L" << num(f.px(x) + 5) << "," << num(lo) << " M"
            << num(f.px(x) - 5) << "," << num(hi) << " L" << num(f.px(x) + 5) << "," << num(hi) << "\" stroke=\""
            << s.color << "\" stroke-width=\"1.5\" fill=\"none\"/>\n";
      }
      svg << marker_svg(s.marker, f.px(x), f.py(y), s.marker_size, s.color);
    }
    svg << "</g>\n";
    return;
  }
  svg << "<polyline class=\"series\" data-name=\"" << xml_escape(s.name) << "\" fill=\"none\" stroke=\"" << s.color
      << "\" stroke-width=\"2\" stroke-linejoin=\"round\"" << (s.dashed ? " stroke-dasharray=\"7 4\"" : "")
      << " points=\"";
  double previous_y = ChartFrame::kNan;
  std::vector<std::pair<double, double>> drawn;
  for (const auto& [x_value, y_value] : s.points) {
    const double x = f.tx(x_value), y = f.ty(y_value);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    if (s.step && !std::isnan(previous_y)) svg << num(f.px(x)) << "," << num(f.py(previous_y)) << " ";
    svg << num(f.px(x)) << "," << num(f.py(y)) << " ";
    previous_y = y;
    drawn.emplace_back(x, y);
  }
  svg << "\"/>\n";
  if (s.markers || drawn.size() == 1) {
    for (const auto& [x, y] : drawn) {
      svg << marker_svg("circle", f.px(x), f.py(y), s.markers ? s.marker_size : 3.0, s.color);
    }
  }
}

// Data, clipped to the plot area so fixed ranges cut long curves cleanly: bands, reference lines, series.
void draw_data(std::ostream& svg, const LineChart& c, const ChartFrame& f) {
  const std::string clip = (c.id.empty() ? std::string("chart") : c.id) + "-clip";
  svg << "<clipPath id=\"" << xml_escape(clip) << "\"><rect x=\"" << num(f.left) << "\" y=\"" << num(f.top)
      << "\" width=\"" << num(f.plot_w) << "\" height=\"" << num(f.plot_h) << "\"/></clipPath>\n";
  svg << "<g clip-path=\"url(#" << xml_escape(clip) << ")\">\n";
  for (const auto& b : c.bands) {
    std::string path;
    auto add = [&](double x, double y) {
      const double u = f.tx(x), v = f.ty(y);
      if (std::isnan(u) || std::isnan(v)) return;
      path += (path.empty() ? "M" : " L") + num(f.px(u)) + "," + num(f.py(v));
    };
    for (const auto& [x, y] : b.upper) add(x, y);
    for (auto it = b.lower.rbegin(); it != b.lower.rend(); ++it) add(it->first, it->second);
    if (!path.empty()) {
      svg << "<path class=\"band\" data-name=\"" << xml_escape(b.name) << "\" d=\"" << path << " Z\" fill=\""
          << b.color << "\" fill-opacity=\"0.18\" stroke=\"none\"/>\n";
    }
  }
  for (const auto& h : c.hlines) {
    if (std::isnan(f.ty(h.y))) continue;
    svg << "<line class=\"reference-line\" x1=\"" << num(f.left) << "\" y1=\"" << num(f.py(f.ty(h.y))) << "\" x2=\""
        << num(f.left + f.plot_w) << "\" y2=\"" << num(f.py(f.ty(h.y))) << "\" stroke=\"" << h.color
        << "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
  }
  for (const auto& v : c.vlines) {
    if (std::isnan(f.tx(v.x))) continue;
    svg << "<line class=\"reference-line vertical\" x1=\"" << num(f.px(f.tx(v.x))) << "\" y1=\"" << num(f.top)
        << "\" x2=\"" << num(f.px(f.tx(v.x))) << "\" y2=\"" << num(f.top + f.plot_h) << "\" stroke=\"" << v.color
        << "\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>\n";
  }
  for (const auto& s : c.series) {
    if (!s.points.empty()) draw_series(svg, s, f);
  }
  svg << "</g>\n";
}

// The reference lines' labels and the legend (only what has something drawn).
void draw_labels_and_legend(std::ostream& svg, const LineChart& c, const ChartFrame& f) {
  for (const auto& h : c.hlines) {
    if (h.label.empty() || std::isnan(f.ty(h.y))) continue;
    // At the left end, where curves are farthest from a target (they have not reached it yet),
    // with a white halo: at the right end the label sat on the curves.
    svg << "<text class=\"reference-label\" x=\"" << num(f.left + 4) << "\" y=\"" << num(f.py(f.ty(h.y)) - 5)
        << "\" fill=\"" << h.color << "\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">"
        << xml_escape(h.label) << "</text>\n";
  }
  for (size_t i = 0; i < c.vlines.size(); ++i) {
    const auto& v = c.vlines[i];
    if (v.label.empty() || std::isnan(f.tx(v.x))) continue;
    svg << "<text x=\"" << num(f.px(f.tx(v.x)) + 4) << "\" y=\"" << num(f.top + 14 + 14 * static_cast<double>(i))
        << "\" fill=\"" << v.color << "\">" << xml_escape(v.label) << "</text>\n";
  }
  const double lx = f.left + f.plot_w;
  double ly = f.top + 8;
  for (const auto& b : c.bands) {
    if (b.lower.empty()) continue;
    svg << "<rect x=\"" << num(lx + 14) << "\" y=\"" << num(ly - 6) << "\" width=\"24\" height=\"12\" fill=\""
        << b.color << "\" fill-opacity=\"0.18\"/>\n";
    svg << "<text x=\"" << num(lx + 44) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(b.name) << "</text>\n";
    ly += 20;
  }
  for (const auto& s : c.series) {
    const bool has_data = std::any_of(s.points.begin(), s.points.end(), [&](const std::pair<double, double>& p) {
      return !std::isnan(f.tx(p.first)) && !std::isnan(f.ty(p.second));
    });
    if (!has_data) continue;
    if (s.markers_only) {
      svg << marker_svg(s.marker, lx + 26, ly, s.marker_size, s.color);
    } else {
      svg << "<line x1=\"" << num(lx + 14) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(lx + 38) << "\" y2=\""
          << num(ly) << "\" stroke=\"" << s.color << "\" stroke-width=\"3\""
          << (s.dashed ? " stroke-dasharray=\"5 3\"" : "") << "/>\n";
      if (s.markers) svg << marker_svg("circle", lx + 26, ly, s.marker_size, s.color);
    }
    svg << "<text x=\"" << num(lx + 44) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(s.name) << "</text>\n";
    ly += 20;
  }
}

}  // namespace

std::string LineChart::render() const {
  Ticks y_ticks;
  const ChartFrame frame = frame_of(*this, y_ticks);
  std::ostringstream svg;
  draw_axes(svg, *this, frame, x_ticks_of(*this, frame), y_ticks);
  draw_data(svg, *this, frame);
  draw_labels_and_legend(svg, *this, frame);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace pacer
