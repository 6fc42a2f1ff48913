#include "report/html_report.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_input.h"
#include "core/format.h"
#include "report/score_charts.h"
#include "report/svg_chart.h"
#include "report/xml_escape.h"

namespace pacer {
namespace {

const char* kStyle = R"(
body { font-family: Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1120px; color: #222; }
h1 { font-size: 24px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
p.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0; font-size: 14px; }
th, td { border: 1px solid #ddd; padding: 5px 10px; text-align: right; }
th { background: #f4f4f4; }
td.name, th.name { text-align: left; }
td.not-counted { color: #999; }
span.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; }
div#curves { display: flex; flex-wrap: wrap; gap: 12px; }
ul.notes { font-size: 13px; color: #555; }
footer { margin-top: 32px; font-size: 12px; color: #888; }
)";

std::string time_text(const nlohmann::json& v, bool seconds) {
  if (v.is_null()) return "inf";
  return seconds ? format_double("%.3g s", v.get<double>()) : format_double("%.0f steps", v.get<double>());
}

// The <svg> element of a chart file (files are bare SVG elements, so inline them as they are).
std::string read_svg(const std::string& path) {
  std::string svg = read_text_file(path);
  const size_t start = svg.find("<svg");
  if (start == std::string::npos) throw InputError(path + ": not an SVG file");
  return svg.substr(start);
}

// The heading and the leaderboard table: rank, score, workloads reached, speedup.
void write_leaderboard(std::ostringstream& h, const nlohmann::json& j) {
  const std::string reference = j.at("reference").is_null() ? "" : j.at("reference").get<std::string>();
  h << "<h1>Pacer leaderboard</h1>\n<p class=\"meta\">Rules " << xml_escape(j.at("rules").at("description"))
    << (j.at("self_tuning").get<bool>() ? ", self-tuning" : ", external tuning") << "; time: "
    << (j.at("time_axis") == "seconds" ? "submission seconds" : "steps") << "; scored workloads:";
  for (const auto& w : j.at("base_workloads")) h << " " << xml_escape(w.get<std::string>());
  h << "</p>\n";
  h << "<table id=\"leaderboard\">\n<thead><tr><th>rank</th><th class=\"name\">submission</th><th>score</th>"
    << "<th>workloads reached</th>";
  if (!reference.empty()) h << "<th>speedup vs " << xml_escape(reference) << "</th>";
  h << "</tr></thead>\n<tbody>\n";
  const auto& subs = j.at("submissions");
  const size_t workloads = j.at("workloads").size();
  for (size_t s = 0; s < subs.size(); ++s) {
    const auto& sub = subs[s];
    h << "<tr><td>" << sub.at("rank").get<int>() << "</td><td class=\"name\"><span class=\"swatch\" style=\""
      << palette_swatch_css(s) << "\"></span>" << xml_escape(sub.at("name")) << "</td><td>"
      << format_double("%.4f", sub.at("score").get<double>()) << "</td><td>" << sub.at("reached").get<int>() << "/"
      << workloads << "</td>";
    if (!reference.empty()) {
      h << "<td>" << (sub.at("speedup").is_null() ? "-" : format_double("%.3fx", sub.at("speedup").get<double>())) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</tbody>\n</table>\n";
}

// The time-to-target table (median over studies, ratio to the fastest) and why a cell is not counted.
void write_time_to_target(std::ostringstream& h, const nlohmann::json& j) {
  const bool seconds = j.at("time_axis") == "seconds";
  h << "<h2>Time to target</h2>\n<p class=\"meta\">Median over studies; in brackets the ratio to the fastest; "
    << "grey: not counted in the score (reason below).</p>\n<table id=\"time-to-target\">\n<thead><tr>"
    << "<th class=\"name\">submission</th>";
  for (const auto& w : j.at("workloads")) {
    h << "<th>" << xml_escape(w.at("name")) << "<br><small>" << xml_escape(w.at("metric")) << " "
      << (w.at("direction") == "max" ? "&ge; " : "&le; ") << format_double("%.4g", w.at("validation_target").get<double>())
      << "</small></th>";
  }
  h << "</tr></thead>\n<tbody>\n";
  std::vector<std::string> notes;
  for (const auto& sub : j.at("submissions")) {
    h << "<tr><td class=\"name\">" << xml_escape(sub.at("name")) << "</td>";
    for (const auto& w : j.at("workloads")) {
      const auto& ws = sub.at("workloads").at(w.at("name").get<std::string>());
      const bool counted = ws.at("counted").get<bool>();
      std::string cell = ws.at("has_logs").get<bool>() ? time_text(ws.at("time"), seconds) : "-";
      if (counted && !ws.at("ratio").is_null()) cell += " (" + format_double("%.2f", ws.at("ratio").get<double>()) + ")";
      if (!counted) {
        notes.push_back(sub.at("name").get<std::string>() + " / " + w.at("name").get<std::string>() + ": " +
                        ws.at("reason").get<std::string>());
      }
      h << "<td" << (counted ? "" : " class=\"not-counted\" title=\"" + xml_escape(ws.at("reason")) + "\"") << ">"
        << xml_escape(cell) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</tbody>\n</table>\n";
  if (!notes.empty()) {
    h << "<ul class=\"notes\">\n";
    for (const auto& n : notes) h << "<li>" << xml_escape(n) << "</li>\n";
    h << "</ul>\n";
  }
}

}  // namespace

std::string render_report_html(const std::string& dir) {
  const std::string scores_path = dir + "/scores.json";
  if (!std::filesystem::exists(scores_path)) {
    throw InputError(scores_path + " not found: run `pacer score ... --out " + dir + "` first");
  }
  nlohmann::json j;
  try {
    const std::string text = read_text_file(scores_path);
    check_json_input(text, scores_path);
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(scores_path + ": not valid JSON: " + e.what());
  }
  try {
    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>Pacer leaderboard</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
    write_leaderboard(h, j);
    h << "<h2>Performance profiles</h2>\n" << read_svg(dir + "/performance_profiles.svg");
    write_time_to_target(h, j);
    h << "<h2>Training curves</h2>\n<p class=\"meta\">Per submission, the trial that reached the target first "
      << "(else the one with the best value); dashed: the validation target.</p>\n<div id=\"curves\">\n";
    for (const auto& w : j.at("workloads")) h << read_svg(dir + "/" + chart_file_name(w.at("name")));
    h << "</div>\n";
    if (!j.at("warnings").empty()) {
      h << "<h2>Warnings</h2>\n<ul id=\"warnings\" class=\"notes\">\n";
      for (const auto& w : j.at("warnings")) h << "<li>" << xml_escape(w.get<std::string>()) << "</li>\n";
      h << "</ul>\n";
    }
    h << "<footer>Generated by <code>pacer report</code> from " << xml_escape(scores_path)
      << ". Score: area under the performance profile over tau in [1, 4], normalized to [0, 1].</footer>\n";
    h << "</body>\n</html>\n";
    return h.str();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(scores_path + ": unexpected content: " + e.what());
  }
}

void write_report(const std::string& score_dir, const std::string& out_file) {
  write_file_atomic(out_file, render_report_html(score_dir));
}

}  // namespace pacer
