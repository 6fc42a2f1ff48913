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

std::string LineChart::render() const {
  // The legend sits right of the plot: room for the longest name (about 7 px a character at 12 px).
  size_t longest = 0;
  for (const auto& s : series) longest = std::max(longest, s.name.size());
  for (const auto& b : bands) longest = std::max(longest, b.name.size());
  // left and top are settled once the y ticks and the clipped count are known (below).
  double left = 64, top = 34;
  const double right = std::max(170.0, 52.0 + 7.0 * static_cast<double>(longest)), bottom = 48;
  double plot_w = width - left - right, plot_h = height - top - bottom;
  // Under a log axis every coordinate is in log10 units from here on; values <= 0 have no place there.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto tx = [&](double x) { return log_x ? (x > 0 ? std::log10(x) : nan) : x; };
  auto ty = [&](double y) { return log_y ? (y > 0 ? std::log10(y) : nan) : y; };
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  auto extend = [&](double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  };
  for (const auto& s : series) {
    for (size_t i = 0; i < s.points.size(); ++i) {
      const double x = tx(s.points[i].first);
      extend(x, ty(s.points[i].second));
      if (i < s.y_bars.size()) extend(x, ty(s.y_bars[i].first)), extend(x, ty(s.y_bars[i].second));
    }
  }
  for (const auto& b : bands) {
    for (const auto& p : b.lower) extend(tx(p.first), ty(p.second));
    for (const auto& p : b.upper) extend(tx(p.first), ty(p.second));
  }
  for (const auto& h : hlines) {
    const double y = ty(h.y);
    if (!std::isnan(y)) y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  for (const auto& v : vlines) {
    const double x = tx(v.x);
    if (!std::isnan(x)) x0 = std::min(x0, x), x1 = std::max(x1, x);
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1;
  if (!std::isfinite(y0)) y0 = 0, y1 = 1;
  if (x_min && !std::isnan(tx(*x_min))) x0 = tx(*x_min);
  if (x_max && !std::isnan(tx(*x_max))) x1 = tx(*x_max);
  if (y_min && !std::isnan(ty(*y_min))) y0 = ty(*y_min);
  if (y_max && !std::isnan(ty(*y_max))) y1 = ty(*y_max);
  if (!(x1 > x0)) x0 -= 0.5, x1 += 0.5;
  if (!(y1 > y0)) y0 -= 0.5, y1 += 0.5;
  if (!y_min && !y_max) {  // a little air above and below the data
    const double pad = 0.05 * (y1 - y0);
    y0 -= pad, y1 += pad;
  }
  if (log_x && !x_min && !x_max) {  // and beside it, so end markers are not cut in half
    const double pad = 0.03 * (x1 - x0);
    x0 -= pad, x1 += pad;
  }
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * plot_w; };
  auto py = [&](double y) { return top + (1.0 - (y - y0) / (y1 - y0)) * plot_h; };
  // Points a fixed range leaves out (or a log axis cannot show) are counted, and the chart says so.
  size_t clipped = 0;
  const double ex = 1e-9 * (x1 - x0), ey = 1e-9 * (y1 - y0);
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      const double u = tx(x), v = ty(y);
      if (!std::isfinite(u) || !std::isfinite(v) || u < x0 - ex || u > x1 + ex || v < y0 - ey || v > y1 + ey) ++clipped;
    }
  }
  std::vector<std::pair<double, std::string>> y_ticks;
  if (log_y) {
    for (double t : log_ticks(y0, y1)) y_ticks.emplace_back(t, value_label(std::pow(10.0, t)));
  } else {
    for (double t : nice_ticks(y0, y1, 5)) y_ticks.emplace_back(t, tick_label(t));
  }
  // Room for the widest y tick label beside the rotated y title (long labels ran under it), and a
  // line under the title for the clipped note (it ran into long titles).
  size_t widest = 0;
  for (const auto& tick : y_ticks) widest = std::max(widest, tick.second.size());
  left = std::max(64.0, 34.0 + 7.0 * static_cast<double>(widest));
  if (clipped > 0) top = 50;
  plot_w = width - left - right, plot_h = height - top - bottom;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\"";
  if (!id.empty()) svg << " id=\"" << xml_escape(id) << "\"";
  if (!css_class.empty()) svg << " class=\"" << xml_escape(css_class) << "\"";
  svg << " width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
      << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" role=\"img\">\n";
  svg << "<title>" << xml_escape(title) << "</title>\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  svg << "<text x=\"" << num(left) << "\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" << xml_escape(title)
      << "</text>\n";
  if (clipped > 0) {
    svg << "<text class=\"clipped-note\" x=\"" << num(left + plot_w) << "\" y=\"40\" text-anchor=\"end\" fill=\"#a33\">"
        << clipped << (clipped == 1 ? " point" : " points") << " outside the plotted range (clipped)</text>\n";
  }
  // Grid and ticks.
  std::vector<std::pair<double, std::string>> x_ticks;
  if (!x_tick_labels.empty()) {
    for (const auto& [x, label] : x_tick_labels) {
      if (!std::isnan(tx(x))) x_ticks.emplace_back(tx(x), xml_escape(label));
    }
  } else if (log_x && log2_x && log2_ticks(x0, x1).size() >= 2) {
    for (double t : log2_ticks(x0, x1)) x_ticks.emplace_back(t, value_label(std::pow(10.0, t)));
  } else if (log_x) {
    for (double t : log_ticks(x0, x1)) x_ticks.emplace_back(t, value_label(std::pow(10.0, t)));
  } else {
    for (double t : nice_ticks(x0, x1, 6)) x_ticks.emplace_back(t, tick_label(t));
  }
  for (const auto& [t, label] : x_ticks) {
    svg << "<line x1=\"" << num(px(t)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(px(t)) << "\" y2=\""
        << num(top + plot_h) << "\" stroke=\"#e5e5e5\"/>\n";
    svg << "<text x=\"" << num(px(t)) << "\" y=\"" << num(top + plot_h + 16) << "\" text-anchor=\"middle\">"
        << label << "</text>\n";
  }
  for (const auto& [t, label] : y_ticks) {
    svg << "<line x1=\"" << num(left) << "\" y1=\"" << num(py(t)) << "\" x2=\"" << num(left + plot_w) << "\" y2=\""
        << num(py(t)) << "\" stroke=\"#e5e5e5\"/>\n";
    svg << "<text x=\"" << num(left - 6) << "\" y=\"" << num(py(t) + 4) << "\" text-anchor=\"end\">" << label
        << "</text>\n";
  }
  svg << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(plot_w) << "\" height=\""
      << num(plot_h) << "\" fill=\"none\" stroke=\"#888\"/>\n";
  svg << "<text x=\"" << num(left + plot_w / 2) << "\" y=\"" << num(height - 10.0)
      << "\" text-anchor=\"middle\">" << xml_escape(x_label + (log_x ? " (log scale)" : "")) << "</text>\n";
  svg << "<text transform=\"translate(16," << num(top + plot_h / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << xml_escape(y_label + (log_y ? " (log scale)" : "")) << "</text>\n";
  // Data, clipped to the plot area so fixed ranges cut long curves cleanly.
  const std::string clip = (id.empty() ? std::string("chart") : id) + "-clip";
  svg << "<clipPath id=\"" << xml_escape(clip) << "\"><rect x=\"" << num(left) << "\" y=\"" << num(top)
      << "\" width=\"" << num(plot_w) << "\" height=\"" << num(plot_h) << "\"/></clipPath>\n";
  svg << "<g clip-path=\"url(#" << xml_escape(clip) << ")\">\n";
  for (const auto& b : bands) {
    std::string path;
    auto add = [&](double x, double y) {
      const double u = tx(x), v = ty(y);
      if (std::isnan(u) || std::isnan(v)) return;
      path += (path.empty() ? "M" : " L") + num(px(u)) + "," + num(py(v));
    };
    for (const auto& [x, y] : b.upper) add(x, y);
    for (auto it = b.lower.rbegin(); it != b.lower.rend(); ++it) add(it->first, it->second);
    if (!path.empty()) {
      svg << "<path class=\"band\" data-name=\"" << xml_escape(b.name) << "\" d=\"" << path << " Z\" fill=\""
          << b.color << "\" fill-opacity=\"0.18\" stroke=\"none\"/>\n";
    }
  }
  for (const auto& h : hlines) {
    if (std::isnan(ty(h.y))) continue;
    svg << "<line class=\"reference-line\" x1=\"" << num(left) << "\" y1=\"" << num(py(ty(h.y))) << "\" x2=\""
        << num(left + plot_w) << "\" y2=\"" << num(py(ty(h.y))) << "\" stroke=\"" << h.color
        << "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
  }
  for (const auto& v : vlines) {
    if (std::isnan(tx(v.x))) continue;
    svg << "<line class=\"reference-line vertical\" x1=\"" << num(px(tx(v.x))) << "\" y1=\"" << num(top) << "\" x2=\""
        << num(px(tx(v.x))) << "\" y2=\"" << num(top + plot_h) << "\" stroke=\"" << v.color
        << "\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>\n";
  }
  for (const auto& s : series) {
    if (s.points.empty()) continue;
    if (s.markers_only) {
      svg << "<g class=\"series markers\" data-name=\"" << xml_escape(s.name) << "\">\n";
      for (size_t i = 0; i < s.points.size(); ++i) {
        const double x = tx(s.points[i].first), y = ty(s.points[i].second);
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        if (i < s.y_bars.size() && !std::isnan(ty(s.y_bars[i].first)) && !std::isnan(ty(s.y_bars[i].second))) {
          const double lo = py(ty(s.y_bars[i].first)), hi = py(ty(s.y_bars[i].second));
          svg << "<path class=\"bar\" d=\"M" << num(px(x)) << "," << num(lo) << " L" << num(px(x)) << "," << num(hi)
              << " M" << num(px(x) - 5) << "," << num(lo) << " L" << num(px(x) + 5) << "," << num(lo) << " M"
              << num(px(x) - 5) << "," << num(hi) << " L" << num(px(x) + 5) << "," << num(hi) << "\" stroke=\""
              << s.color << "\" stroke-width=\"1.5\" fill=\"none\"/>\n";
        }
        svg << marker_svg(s.marker, px(x), py(y), s.marker_size, s.color);
      }
      svg << "</g>\n";
      continue;
    }
    svg << "<polyline class=\"series\" data-name=\"" << xml_escape(s.name) << "\" fill=\"none\" stroke=\"" << s.color
        << "\" stroke-width=\"2\" stroke-linejoin=\"round\"" << (s.dashed ? " stroke-dasharray=\"7 4\"" : "")
        << " points=\"";
    double previous_y = nan;
    std::vector<std::pair<double, double>> drawn;
    for (const auto& [x_value, y_value] : s.points) {
      const double x = tx(x_value), y = ty(y_value);
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      if (s.step && !std::isnan(previous_y)) svg << num(px(x)) << "," << num(py(previous_y)) << " ";
      svg << num(px(x)) << "," << num(py(y)) << " ";
      previous_y = y;
      drawn.emplace_back(x, y);
    }
    svg << "\"/>\n";
    if (s.markers || drawn.size() == 1) {
      for (const auto& [x, y] : drawn) svg << marker_svg("circle", px(x), py(y), s.markers ? s.marker_size : 3.0, s.color);
    }
  }
  svg << "</g>\n";
  for (const auto& h : hlines) {
    if (h.label.empty() || std::isnan(ty(h.y))) continue;
    // At the left end, where curves are farthest from a target (they have not reached it yet),
    // with a white halo: at the right end the label sat on the curves.
    svg << "<text class=\"reference-label\" x=\"" << num(left + 4) << "\" y=\"" << num(py(ty(h.y)) - 5)
        << "\" fill=\"" << h.color << "\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">"
        << xml_escape(h.label) << "</text>\n";
  }
  for (size_t i = 0; i < vlines.size(); ++i) {
    const auto& v = vlines[i];
    if (v.label.empty() || std::isnan(tx(v.x))) continue;
    svg << "<text x=\"" << num(px(tx(v.x)) + 4) << "\" y=\"" << num(top + 14 + 14 * static_cast<double>(i))
        << "\" fill=\"" << v.color << "\">" << xml_escape(v.label) << "</text>\n";
  }
  // Legend: only what has something drawn.
  double ly = top + 8;
  for (const auto& b : bands) {
    if (b.lower.empty()) continue;
    svg << "<rect x=\"" << num(left + plot_w + 14) << "\" y=\"" << num(ly - 6) << "\" width=\"24\" height=\"12\" fill=\""
        << b.color << "\" fill-opacity=\"0.18\"/>\n";
    svg << "<text x=\"" << num(left + plot_w + 44) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(b.name)
        << "</text>\n";
    ly += 20;
  }
  for (const auto& s : series) {
    const bool has_data = std::any_of(s.points.begin(), s.points.end(), [&](const std::pair<double, double>& p) {
      return !std::isnan(tx(p.first)) && !std::isnan(ty(p.second));
    });
    if (!has_data) continue;
    if (s.markers_only) {
      svg << marker_svg(s.marker, left + plot_w + 26, ly, s.marker_size, s.color);
    } else {
      svg << "<line x1=\"" << num(left + plot_w + 14) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(left + plot_w + 38)
          << "\" y2=\"" << num(ly) << "\" stroke=\"" << s.color << "\" stroke-width=\"3\""
          << (s.dashed ? " stroke-dasharray=\"5 3\"" : "") << "/>\n";
      if (s.markers) svg << marker_svg("circle", left + plot_w + 26, ly, s.marker_size, s.color);
    }
    svg << "<text x=\"" << num(left + plot_w + 44) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(s.name)
        << "</text>\n";
    ly += 20;
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace pacer
