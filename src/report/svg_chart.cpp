#include "report/svg_chart.h"

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

// Log-axis ticks in log10 units: every power of ten on long ranges, 1-2-5 or 1..9 on short ones.
std::vector<double> log_ticks(double lo, double hi) {
  const double span = hi - lo;
  std::vector<double> mantissas = {1};
  if (span < 0.7) mantissas = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  else if (span < 2.0) mantissas = {1, 2, 5};
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

}  // namespace

const std::string& palette_color(size_t index) {
  // Okabe-Ito and Tableau hues: readable for colour-blind viewers and on white.
  static const std::vector<std::string> colors = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                                  "#56B4E9", "#000000", "#8C564B", "#7F7F7F", "#BCBD22"};
  return colors[index % colors.size()];
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
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

std::string LineChart::render() const {
  // The legend sits right of the plot: room for the longest name (about 7 px a character at 12 px).
  size_t longest = 0;
  for (const auto& s : series) longest = std::max(longest, s.name.size());
  const double left = 64, right = std::max(170.0, 52.0 + 7.0 * static_cast<double>(longest)), top = 34, bottom = 48;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  // Under log_x every x is in log10 units from here on; points at x <= 0 have no place there.
  auto tx = [&](double x) { return log_x ? (x > 0 ? std::log10(x) : std::numeric_limits<double>::quiet_NaN()) : x; };
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : series) {
    for (size_t i = 0; i < s.points.size(); ++i) {
      const double x = tx(s.points[i].first), y = s.points[i].second;
      if (std::isnan(x)) continue;
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
      if (i < s.y_bars.size()) y0 = std::min(y0, s.y_bars[i].first), y1 = std::max(y1, s.y_bars[i].second);
    }
  }
  for (const auto& h : hlines) y0 = std::min(y0, h.y), y1 = std::max(y1, h.y);
  if (!std::isfinite(x0)) x0 = 0, x1 = 1;
  if (!std::isfinite(y0)) y0 = 0, y1 = 1;
  if (x_min && !std::isnan(tx(*x_min))) x0 = tx(*x_min);
  if (x_max && !std::isnan(tx(*x_max))) x1 = tx(*x_max);
  if (y_min) y0 = *y_min;
  if (y_max) y1 = *y_max;
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y0 -= 0.5, y1 += 0.5;
  if (!y_min && !y_max) {  // a little air above and below the data
    const double pad = 0.05 * (y1 - y0);
    y0 -= pad, y1 += pad;
  }
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * plot_w; };
  auto py = [&](double y) { return top + (1.0 - (y - y0) / (y1 - y0)) * plot_h; };

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
  // Grid and ticks.
  std::vector<std::pair<double, std::string>> x_ticks;
  if (!x_tick_labels.empty()) {
    for (const auto& [x, label] : x_tick_labels) {
      if (!std::isnan(tx(x))) x_ticks.emplace_back(tx(x), xml_escape(label));
    }
  } else if (log_x) {
    for (double t : log_ticks(x0, x1)) x_ticks.emplace_back(t, tick_label(std::pow(10.0, t)));
  } else {
    for (double t : nice_ticks(x0, x1, 6)) x_ticks.emplace_back(t, tick_label(t));
  }
  for (const auto& [t, label] : x_ticks) {
    svg << "<line x1=\"" << num(px(t)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(px(t)) << "\" y2=\""
        << num(top + plot_h) << "\" stroke=\"#e5e5e5\"/>\n";
    svg << "<text x=\"" << num(px(t)) << "\" y=\"" << num(top + plot_h + 16) << "\" text-anchor=\"middle\">"
        << label << "</text>\n";
  }
  for (double t : nice_ticks(y0, y1, 5)) {
    svg << "<line x1=\"" << num(left) << "\" y1=\"" << num(py(t)) << "\" x2=\"" << num(left + plot_w) << "\" y2=\""
        << num(py(t)) << "\" stroke=\"#e5e5e5\"/>\n";
    svg << "<text x=\"" << num(left - 6) << "\" y=\"" << num(py(t) + 4) << "\" text-anchor=\"end\">" << tick_label(t)
        << "</text>\n";
  }
  svg << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(plot_w) << "\" height=\""
      << num(plot_h) << "\" fill=\"none\" stroke=\"#888\"/>\n";
  svg << "<text x=\"" << num(left + plot_w / 2) << "\" y=\"" << num(height - 10.0)
      << "\" text-anchor=\"middle\">" << xml_escape(x_label) << "</text>\n";
  svg << "<text transform=\"translate(16," << num(top + plot_h / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << xml_escape(y_label) << "</text>\n";
  // Data, clipped to the plot area so fixed ranges cut long curves cleanly.
  const std::string clip = (id.empty() ? std::string("chart") : id) + "-clip";
  svg << "<clipPath id=\"" << xml_escape(clip) << "\"><rect x=\"" << num(left) << "\" y=\"" << num(top)
      << "\" width=\"" << num(plot_w) << "\" height=\"" << num(plot_h) << "\"/></clipPath>\n";
  svg << "<g clip-path=\"url(#" << xml_escape(clip) << ")\">\n";
  for (const auto& h : hlines) {
    svg << "<line class=\"reference-line\" x1=\"" << num(left) << "\" y1=\"" << num(py(h.y)) << "\" x2=\""
        << num(left + plot_w) << "\" y2=\"" << num(py(h.y)) << "\" stroke=\"" << h.color
        << "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
  }
  for (const auto& s : series) {
    if (s.points.empty()) continue;
    if (s.markers_only) {
      svg << "<g class=\"series markers\" data-name=\"" << xml_escape(s.name) << "\">\n";
      for (size_t i = 0; i < s.points.size(); ++i) {
        const double x = tx(s.points[i].first);
        if (std::isnan(x)) continue;
        if (i < s.y_bars.size()) {
          const double lo = py(s.y_bars[i].first), hi = py(s.y_bars[i].second);
          svg << "<path class=\"bar\" d=\"M" << num(px(x)) << "," << num(lo) << " L" << num(px(x)) << "," << num(hi)
              << " M" << num(px(x) - 5) << "," << num(lo) << " L" << num(px(x) + 5) << "," << num(lo) << " M"
              << num(px(x) - 5) << "," << num(hi) << " L" << num(px(x) + 5) << "," << num(hi) << "\" stroke=\""
              << s.color << "\" stroke-width=\"1.5\" fill=\"none\"/>\n";
        }
        svg << marker_svg(s.marker, px(x), py(s.points[i].second), s.marker_size, s.color);
      }
      svg << "</g>\n";
      continue;
    }
    svg << "<polyline class=\"series\" data-name=\"" << xml_escape(s.name) << "\" fill=\"none\" stroke=\"" << s.color
        << "\" stroke-width=\"2\" stroke-linejoin=\"round\" points=\"";
    for (size_t i = 0; i < s.points.size(); ++i) {
      if (std::isnan(tx(s.points[i].first))) continue;
      if (s.step && i > 0) svg << num(px(tx(s.points[i].first))) << "," << num(py(s.points[i - 1].second)) << " ";
      svg << num(px(tx(s.points[i].first))) << "," << num(py(s.points[i].second)) << " ";
    }
    svg << "\"/>\n";
    if (s.points.size() == 1 && !std::isnan(tx(s.points[0].first))) {
      svg << "<circle cx=\"" << num(px(tx(s.points[0].first))) << "\" cy=\"" << num(py(s.points[0].second))
          << "\" r=\"3\" fill=\"" << s.color << "\"/>\n";
    }
  }
  svg << "</g>\n";
  for (const auto& h : hlines) {
    if (h.label.empty()) continue;
    svg << "<text x=\"" << num(left + plot_w - 4) << "\" y=\"" << num(py(h.y) - 5) << "\" text-anchor=\"end\" fill=\""
        << h.color << "\">" << xml_escape(h.label) << "</text>\n";
  }
  // Legend.
  double ly = top + 8;
  for (const auto& s : series) {
    if (s.markers_only) {
      svg << marker_svg(s.marker, left + plot_w + 26, ly, s.marker_size, s.color);
      svg << "<text x=\"" << num(left + plot_w + 44) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(s.name)
          << "</text>\n";
      ly += 20;
      continue;
    }
    svg << "<line x1=\"" << num(left + plot_w + 14) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(left + plot_w + 38)
        << "\" y2=\"" << num(ly) << "\" stroke=\"" << s.color << "\" stroke-width=\"3\"/>\n";
    svg << "<text x=\"" << num(left + plot_w + 44) << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(s.name)
        << "</text>\n";
    ly += 20;
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace pacer
